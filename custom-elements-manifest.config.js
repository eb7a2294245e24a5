// custom-elements.json, generated from the JSDoc of the widget's source by
// `npm run build`. Paths point at the built modules that ship in the package.
const toBuilt = (path) => path?.replace(/^(\.?\/)?src\//, 'dist/').replace(/\.ts$/, '.js');

export default {
  globs: ['src/widget/**/*.ts'],
  outdir: '.',
  litelement: true,
  // package.json is only changed through `npm pkg set` (its customElements field is set there).
  packagejson: false,
  plugins: [
    {
      name: 'kagent-built-paths',
      packageLinkPhase({ customElementsManifest }) {
        for (const module of customElementsManifest.modules) {
          module.path = toBuilt(module.path);
          // The element's events are its `@fires` tags, which all have a description. The analyzer
          // also reports one named `type`, read from the shared `#emit(type, …)` helper's `new CustomEvent(type, …)`.
          for (const declaration of module.declarations ?? []) {
            if (declaration.events) declaration.events = declaration.events.filter((event) => event.description);
          }
          for (const item of [...(module.exports ?? []), ...(module.declarations ?? [])]) {
            if (item.declaration?.module) item.declaration.module = toBuilt(item.declaration.module);
            if (item.superclass?.module) item.superclass.module = toBuilt(item.superclass.module);
            for (const member of item.members ?? []) if (member.inheritedFrom?.module) member.inheritedFrom.module = toBuilt(member.inheritedFrom.module);
          }
        }
      },
    },
  ],
};
