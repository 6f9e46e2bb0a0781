// n8n's own logger (winston, level from N8N_LOG_LEVEL) prints each run's progress and summary
// line to the console; the unit tests run thousands of runs, so only warnings and errors show.
process.env.N8N_LOG_LEVEL ??= 'warn';
