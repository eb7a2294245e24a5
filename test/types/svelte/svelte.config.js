// Svelte's compiler options for the checked example (the repository's vite.config has no Svelte plugin).
export default {};
