const { src, dest } = require('gulp');

// tsc emits only JavaScript; n8n also needs the node and credential icons next to the compiled files.
function buildIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
