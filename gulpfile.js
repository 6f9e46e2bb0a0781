const { src, dest } = require('gulp');

// Not part of `npm run build`: `n8n-node build` compiles with tsc and copies the icons (icons/,
// used by the node and the credential) into dist/icons itself. `npx gulp build:icons` copies
// them after a build with plain `tsc`.
function buildIcons() {
	return src(['icons/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
