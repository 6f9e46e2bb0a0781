/** Types of scripts/check-dist.js (the prepack check). */
export function distProblems(root?: string): string[];
