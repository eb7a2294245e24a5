// How the element's attributes that are not plain strings read (Lit converters).

/** `streaming="false"` turns streaming off; absent or any other value leaves it on. */
export const onUnlessFalse = {
  fromAttribute: (value: string | null) => value?.trim().toLowerCase() !== 'false',
  toAttribute: (value: boolean) => (value ? null : 'false'),
};

/** `suggestions="A|B"` or a JSON array of strings. */
export const listAttribute = {
  fromAttribute(value: string | null): string[] {
    if (!value) return [];
    try {
      const list: unknown = JSON.parse(value);
      if (Array.isArray(list)) return list.map(String);
    } catch {
      // Not JSON: the `|`-separated form.
    }
    return value.split('|').map((item) => item.trim()).filter(Boolean);
  },
};
