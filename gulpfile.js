const { src, dest } = require('gulp');

// tsc emits only JavaScript; n8n also needs the icons (one pair, icons/, used by the node and the
// credential) where the compiled files point: dist/icons.
function buildIcons() {
	return src(['icons/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
