// scripts/ is not part of the package: the repository's own config (see eslint.repo.config.mjs).
export { default } from '../eslint.repo.config.mjs';
