// Prints the jest totals of every JSON report given as "N passed, N failed" (the CI summary line).
const fs = require('node:fs');

let passed = 0;
let failed = 0;
let suitesFailed = 0;
for (const file of process.argv.slice(2)) {
	if (!fs.existsSync(file)) {
		console.log(`${file}: no report (the run stopped before jest finished)`);
		failed += 1;
		continue;
	}
	const report = JSON.parse(fs.readFileSync(file, 'utf8'));
	passed += report.numPassedTests;
	failed += report.numFailedTests;
	suitesFailed += report.numFailedTestSuites;
	console.log(
		`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`,
	);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || suitesFailed > 0 ? 1 : 0);
