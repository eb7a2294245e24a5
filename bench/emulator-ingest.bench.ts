// Ingestion throughput: megabytes of text per second, extract (in the worker thread the emulator
// uses) plus split into fragments, for each upload type, on generated inputs of a few megabytes.
import { documentText, extractDocument, splitIntoFragments } from '../emulator/src/ingest/index.js';
import { MIME, makeDocx, makePdf, makePptx, makeXlsx, prose, text, type SampleKind } from '../test/fixtures/ingest/samples.js';

const RUNS = 3;
const MB = 1024 * 1024;

async function inputs(): Promise<Record<SampleKind, Uint8Array>> {
  const sentences = prose(60_000, 42);
  const paragraphs = Array.from({ length: sentences.length / 6 }, (_, index) => sentences.slice(index * 6, index * 6 + 6).join(' '));
  const records = Array.from({ length: 30_000 }, (_, index) => ({ id: index, name: `Item ${index}`, description: sentences[index % sentences.length]!, price: (index % 97) + 0.5, tags: ['alpha', 'beta'] }));
  const rows = records.map((record) => [record.id, record.name, record.description, record.price]);
  const csvCell = (value: unknown) => (/[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
  return {
    text: text(paragraphs.join('\n\n')),
    markdown: text(paragraphs.map((paragraph, index) => (index % 10 === 0 ? `## Section ${index / 10}\n\n` : '') + (index % 7 === 0 ? `- **${paragraph}**` : paragraph)).join('\n\n')),
    json: text(JSON.stringify(records)),
    csv: text([['id', 'name', 'description', 'price'], ...rows].map((row) => row.map(csvCell).join(',')).join('\n')),
    xlsx: makeXlsx([{ name: 'Items', rows: [['id', 'name', 'description', 'price'], ...rows] }]),
    docx: await makeDocx({ heading: 'Report', paragraphs: paragraphs.slice(0, 4_000) }),
    pptx: await makePptx(Array.from({ length: 400 }, (_, index) => ({ title: `Slide ${index + 1}`, body: paragraphs.slice(index * 4, index * 4 + 4), notes: paragraphs[index] }))),
    pdf: await makePdf(Array.from({ length: 400 }, (_, index) => sentences.slice(index * 50, index * 50 + 50))),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const files = await inputs();
console.log(`Ingestion throughput (extract in a worker + split into 1000-character fragments), median of ${RUNS} runs after one warm-up\n`);
console.log('| type | input MB | text MB | fragments | median ms | text MB/s | input MB/s |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const kind of ['text', 'markdown', 'json', 'csv', 'xlsx', 'docx', 'pptx', 'pdf'] as const) {
  const file = { bytes: files[kind], mimeType: MIME[kind], fileName: `bench.${kind}` };
  const times: number[] = [];
  let textBytes = 0;
  let fragments = 0;
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    const document = await extractDocument(file, { timeoutMs: 600_000 });
    fragments = splitIntoFragments(document).length;
    const elapsed = performance.now() - started;
    textBytes = Buffer.byteLength(documentText(document));
    if (run > 0) times.push(elapsed);
  }
  const ms = median(times);
  console.log(
    `| ${kind} | ${(file.bytes.byteLength / MB).toFixed(2)} | ${(textBytes / MB).toFixed(2)} | ${fragments} | ${ms.toFixed(0)} | ${(textBytes / MB / (ms / 1000)).toFixed(1)} | ${(file.bytes.byteLength / MB / (ms / 1000)).toFixed(1)} |`,
  );
}
process.exit(0);
