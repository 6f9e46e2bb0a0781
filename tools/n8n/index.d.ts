/** Types of tools/n8n (plain CommonJS, so that the demo, the benchmark and scripts run it without a build). */
export * from './install';
export * from './package';
export * from './run';
export * from './rest';
