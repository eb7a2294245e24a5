// `stopword` ships no types; the emulator uses only its English list.
declare module 'stopword' {
  export const eng: string[];
}
