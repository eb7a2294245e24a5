/**
 * The `modelName` identifiers of section 2, as data in one place.
 *
 * Each identifier is `<family word>_<suffix>`. The interface description writes
 * family words as neutral labels; `FAMILY_WORDS` is the one spot where a label
 * becomes the word the service really uses. Only `family_a` is confirmed
 * (`claude`, section 9); the others keep their label until confirmed.
 *
 * Code that talks to the real service must not refuse an identifier the
 * service may accept, so the request checks accept any identifier by default
 * (`strictModelNames: false`) and only the emulator insists on this table.
 */
export const FAMILY_WORDS = {
  family_a: 'claude',
  family_b: 'family_b',
  family_c: 'family_c',
  family_d: 'family_d',
  family_e: 'family_e',
  family_f: 'family_f',
  family_g: 'family_g',
  family_h: 'family_h',
  family_i: 'family_i',
  family_j: 'family_j',
  family_k: 'family_k',
  family_l: 'family_l',
  family_m: 'family_m',
  family_n: 'family_n',
  family_o: 'family_o',
} as const;

const W = FAMILY_WORDS;

/** Suffixes per family, as section 2 lists them. */
export const MODEL_SUFFIXES = {
  family_a: ['3_5_haiku', '3_5_sonnet', '4_5_haiku', '4_5_sonnet', 'sonnet_4_6', 'sonnet_5', '4_sonnet', 'opus_4_5', 'opus_4_6', 'opus_4_7', 'opus_5'],
  family_b: ['r1_0528', 'v4_flash', 'v4_pro', 'v3_0324'],
  // Section 2 writes this suffix as `<family_m>_8x7b`: it embeds family_m's word.
  family_c: [`${W.family_m}_8x7b`],
  family_d: ['3_1_flash_image_preview', '3_1_flash_lite_preview', '3_1_pro_preview', '3_5_flash', '3_flash_preview', '3_pro_image_preview', '3_pro_preview', 'flash_2_0', 'flash_2_5', 'pro_2_5'],
  family_e: ['4o_2024_11_20', '4o_mini_2024_07_18', '5', '5_1', '5_1_chat', '5_2', '5_2_chat', '5_2_chat_latest', '5_3_chat_latest', '5_3_codex', '5_4', '5_4_mini', '5_4_nano', '5_5_2026_04_23', '5_mini', '5_nano'],
  family_f: ['5_1'],
  family_g: ['m2_7'],
  family_h: ['v2_omni', 'v2_pro', 'v2_5_pro'],
  family_i: ['4', '4_3', 'build_0_1', '4_20', '4_20_multi_agent'],
  family_j: ['2_24b_a2b'],
  family_k: ['4_maverick', '4_scout'],
  family_l: ['large_2512'],
  family_m: ['8x22b', '8x7b'],
  family_n: ['2_lite_v1', 'premier_v1'],
  family_o: ['pro'],
} as const;

type Family = keyof typeof MODEL_SUFFIXES;

/** One of the identifiers section 2 lists. */
export type KnownModelName = {
  [F in Family]: `${(typeof FAMILY_WORDS)[F]}_${(typeof MODEL_SUFFIXES)[F][number]}`;
}[Family];

/**
 * A `modelName` as sent to the service: a known identifier, or any other
 * string the service may accept (the list differs between its descriptions).
 */
export type ModelName = KnownModelName | (string & {});

/** Every identifier of section 2, family by family, in the order listed. */
export const MODEL_NAMES: readonly KnownModelName[] = (Object.keys(MODEL_SUFFIXES) as Family[]).flatMap(
  (family) => MODEL_SUFFIXES[family].map((suffix) => `${FAMILY_WORDS[family]}_${suffix}` as KnownModelName),
);

const known = new Set<string>(MODEL_NAMES);

/** Whether `name` is one of the identifiers of section 2. */
export function isKnownModelName(name: unknown): name is KnownModelName {
  return typeof name === 'string' && known.has(name);
}
