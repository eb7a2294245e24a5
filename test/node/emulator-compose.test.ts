// Extractive answers (no language model): which pieces of the retrieved
// fragments are quoted, and how, on hand-made fragments.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOSEST, NO_ANSWER, composeAnswer, holdsMeasure, intentOf, sentencesOf } from '../../emulator/src/answers/compose.js';
import { piecesOf } from '../../emulator/src/answers/passages.js';
import { overviewFirst, pickSources, type Retrieved } from '../../emulator/src/answers/retrieve.js';

interface Around {
  offset?: number;
  /** The document's text before the fragment; unset: unknown. */
  before?: string;
  /** The document's text after it; unset: unknown. */
  after?: string;
}

/** A retrieved fragment; by default a whole document (nothing before or after it). */
function hit(name: string, text: string, around: Around = { before: '', after: '' }, score = 0.9): Retrieved {
  return {
    datasourceId: `ds-${name}`,
    score,
    fragment: { id: `f-${name}`, text, offset: around.offset ?? around.before?.length ?? 0 },
    datasource: { id: `ds-${name}`, name, type: 'file', config: {}, custom_id: null },
    ...(around.before !== undefined ? { textBefore: around.before } : {}),
    ...(around.after !== undefined ? { textAfter: around.after } : {}),
  } as unknown as Retrieved;
}

/** The answer without its lead line, its code blocks and its markers: the quoted words. */
function quoted(answer: string): string[] {
  const [, ...rest] = answer.split('\n\n');
  return rest
    .join('\n\n')
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '')
    .split('\n')
    .map((line) => line.replace(/^- /, '').replace(/ \[\d+\]:?$/, '').trim())
    .filter(Boolean);
}

/** The `[n]` markers of an answer, outside code. */
function markers(answer: string): number[] {
  const prose = answer.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
}

describe('sentences and where a fragment cuts them', () => {
  const question = 'Which requests does the proxy refuse?';
  const text = 'visitors ask only the agents you list. It refuses every other request with a 403. Set the agents it serves in its settings.';

  test('a fragment that starts mid-sentence loses that sentence\'s tail, as the text before it shows', () => {
    const answer = composeAnswer(question, [hit('proxy.md', text, { before: 'The proxy holds the API key on the server and lets ', after: '' })]);
    assert.doesNotMatch(answer, /visitors ask only/);
    assert.match(answer, /It refuses every other request with a 403\./);
    for (const line of quoted(answer)) assert.match(line, /^\p{Lu}/u, `starts a sentence: ${line}`);
  });

  test('without the text before it, a fragment inside a document is taken to start mid-sentence', () => {
    const answer = composeAnswer(question, [hit('proxy.md', text, { offset: 51 })]);
    assert.doesNotMatch(answer, /visitors ask only/);
    assert.match(answer, /It refuses every other request/);
  });

  test('a fragment that starts a document, or right after a sentence, keeps its first sentence', () => {
    const whole = 'Visitors ask only the agents you list, and the proxy refuses the rest. Keys stay on the server.';
    assert.match(composeAnswer(question, [hit('proxy.md', whole, { offset: 0 })]), /^Visitors ask only the agents you list, and the proxy refuses the rest\./m);
    assert.match(composeAnswer(question, [hit('proxy.md', whole, { before: 'It holds the key.\n\n', after: '' })]), /^Visitors ask only/m);
  });

  test('a fragment that ends mid-sentence loses that sentence\'s start, as the text after it shows', () => {
    const fragment = 'The emulator keeps everything in memory. With a data folder it writes a journal of changes and';
    const answer = composeAnswer('Where does the emulator write its journal of changes?', [hit('emulator.md', fragment, { before: '', after: ' a snapshot to that folder.' })]);
    assert.doesNotMatch(answer, /journal of changes and/);
    assert.match(answer, /The emulator keeps everything in memory\. \[1\]/);
    // Without the text after it, a last sentence with no end is taken as cut.
    assert.doesNotMatch(composeAnswer('journal of changes', [hit('emulator.md', fragment, { before: '' })]), /journal of changes and/);
    // At the document's end, a last line without a stop is whole.
    assert.match(composeAnswer('journal of changes', [hit('emulator.md', 'The journal of changes lives in the data folder', { before: '', after: '' })]), /The journal of changes lives in the data folder \[1\]/);
  });

  test('a paragraph cut on both sides still gives its whole sentences in the middle', () => {
    const answer = composeAnswer('How many requests per minute?', [hit('limits.md', 'per key. The free plan allows 60 requests per minute. The pro plan allows', { before: 'Limits apply ', after: ' 300 requests per minute.' })]);
    assert.deepEqual(quoted(answer), ['The free plan allows 60 requests per minute.']);
  });

  test('German, French and Japanese sentences are told apart, abbreviations kept inside their sentence', () => {
    assert.deepEqual(sentencesOf('Der Proxy hält den Schlüssel. Er lässt z. B. nur Fragen durch. Über 20 Anfragen pro Minute werden abgelehnt.'), [
      'Der Proxy hält den Schlüssel.',
      'Er lässt z. B. nur Fragen durch.',
      'Über 20 Anfragen pro Minute werden abgelehnt.',
    ]);
    assert.deepEqual(sentencesOf('Il ne laisse passer que les questions, p. ex. « Comment déployer ? » Les autres requêtes sont refusées.'), [
      'Il ne laisse passer que les questions, p. ex. « Comment déployer ? »',
      'Les autres requêtes sont refusées.',
    ]);
    assert.deepEqual(sentencesOf('東京は日本の首都です。人口は約千四百万人です。大阪は二番目に大きい都市です。'), ['東京は日本の首都です。', '人口は約千四百万人です。', '大阪は二番目に大きい都市です。']);
    const answer = composeAnswer('Wie viele Anfragen pro Minute?', [hit('grenzen.md', 'Der Proxy hält den Schlüssel. Er lässt z. B. nur Fragen durch. Über 20 Anfragen pro Minute werden abgelehnt.')]);
    assert.match(answer, /^Über 20 Anfragen pro Minute werden abgelehnt\. \[1\]$/m);
  });

  test('a very long sentence is cut at a word, with an ellipsis', () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const sentence = `The proxy ${words.join(' ')} ends here.`;
    const answer = composeAnswer('What does the proxy do?', [hit('long.md', sentence)]);
    const line = quoted(answer)[0]!;
    assert.ok(line.length <= 801, `at most about 800 characters: ${line.length}`);
    assert.ok(line.endsWith('…'));
    const kept = line.slice(0, -1);
    assert.ok(sentence.startsWith(kept) && sentence[kept.length] === ' ', 'cut between two words');
  });
});

describe('structure: lists, tables and code', () => {
  test('list items stay list items, each with its marker', () => {
    const text = 'The build makes three files:\n\n- dist/kagent-chat.js: the widget for a script tag.\n- dist/widget/index.js: the widget as a module.\n- custom-elements.json: the widget\'s manifest.\n\nThat is all.';
    const answer = composeAnswer('Which files does the widget ship as?', [hit('build.md', text)]);
    assert.match(answer, /^- dist\/kagent-chat\.js: the widget for a script tag\. \[1\]\n- dist\/widget\/index\.js: the widget as a module\. \[1\]\n- custom-elements\.json: the widget's manifest\. \[1\]$/m);
  });

  test('a table row that answers is shown as a table: its header row and that row, after a line with the marker', () => {
    const text = 'Plans and prices.\n\nPlan | Price | Requests\nPlan: Free; Price: 0 euros; Requests: 60 per minute\nPlan: Pro; Price: 20 euros; Requests: 300 per minute\nPlan: Enterprise; Price: by agreement';
    const answer = composeAnswer('What does the Pro plan cost?', [hit('plans.md', text)]);
    assert.match(answer, /\[1\]:?\n\n\| Plan \| Price \| Requests \|\n\|---\|---\|---\|\n\| Pro \| 20 euros \| 300 per minute \|$/);
    assert.doesNotMatch(answer, /Free|Enterprise/, 'only the row asked about');
  });

  test('a passage from a paragraph that closes by announcing a list brings the rest of the paragraph and the list', () => {
    const text = 'An upload is one of three kinds of file. Anything else is refused. Each is read as text first. The three kinds:\n\n- Plain text, read as it is.\n- Markdown, read as a reader sees it.\n- PDF, read page by page.\n\nThat is all.';
    const answer = composeAnswer('What kinds of file can an upload be?', [hit('uploads.md', text)]);
    assert.match(answer, /An upload is one of three kinds of file\. Anything else is refused\. Each is read as text first\. The three kinds \[1\]:/, answer);
    for (const item of ['Plain text', 'Markdown', 'PDF']) assert.match(answer, new RegExp(`^- ${item}, read`, 'm'), answer);
    assert.doesNotMatch(answer, /That is all/);
  });

  test('a table whose rows were flattened without an empty cell is rebuilt with the cell empty', () => {
    const text = 'Plans and prices.\n\nPlan | Price | Requests\nPlan: Free; Price: 0 euros; Requests: 60 per minute\nPlan: Enterprise; Requests: by agreement';
    const answer = composeAnswer('How many requests does the Enterprise plan allow?', [hit('plans.md', text)]);
    assert.match(answer, /^\| Enterprise \|  \| by agreement \|$/m);
  });

  test('a command that answers a how-to is a fenced block after the sentence that introduces it', () => {
    const text = 'Start it\n\nStart the emulator with one command:\n\n```sh\nnpx kagent-emulator --seed docs --port 8787\n```\n\nIt prints its address and the demo key.';
    const answer = composeAnswer('How do I start the emulator?', [hit('emulator.md', text)]);
    assert.match(answer, /Start the emulator with one command \[1\]:\n\n```sh\nnpx kagent-emulator --seed docs --port 8787\n```/);
    assert.equal(answer.split('\n').filter((line) => line.includes('npx kagent-emulator')).length, 1, 'the command once, in its block');
  });

  test('code that is not what the question asks for is left out, never glued into prose', () => {
    const text = 'Deploying\n\n```toml\nname = "kagent-proxy"\nmain = "src/worker.ts"\n```\n\nThe proxy keeps the API key on the server, so visitors never see it.';
    const answer = composeAnswer('Where does the proxy keep the API key?', [hit('proxy.md', text)]);
    assert.equal(answer, 'According to proxy.md:\n\nThe proxy keeps the API key on the server, so visitors never see it. [1]');
  });

  test('code lines in plain text are recognised: fenced when quoted, never inside a sentence', () => {
    const text = 'Put this in wrangler.toml:\nname = "kagent-proxy"\nmain = "src/worker.ts"\nexport { default } from \'kagent-chat/proxy/cloudflare\';\n\nThen run wrangler deploy to publish the proxy to Cloudflare Workers.';
    const answer = composeAnswer('How do I deploy the proxy to Cloudflare Workers?', [hit('deploy.txt', text)]);
    assert.match(answer, /Then run wrangler deploy to publish the proxy to Cloudflare Workers\. \[1\]/);
    const inCode = new Set<number>();
    let open = false;
    answer.split('\n').forEach((line, index) => {
      if (line.startsWith('```')) open = !open;
      else if (open) inCode.add(index);
    });
    answer.split('\n').forEach((line, index) => {
      if (/name = "kagent-proxy"|export \{ default \}/.test(line)) assert.ok(inCode.has(index), `code only inside a fenced block: ${line}`);
    });
  });

  test('a fragment that starts inside a code block does not quote the cut code', () => {
    const text = 'KAGENT_AGENT_IDS = "clx0agent0id"\nKAGENT_ALLOWED_ORIGINS = "https://www.example.com"\n```\n\nThen run npx wrangler deploy to publish the proxy.';
    const answer = composeAnswer('How do I publish the proxy?', [hit('proxy.md', text, { offset: 600 })]);
    assert.doesNotMatch(answer, /KAGENT_/);
    assert.match(answer, /Then run npx wrangler deploy to publish the proxy\. \[1\]/);
  });

  test('a fragment that ends inside a code block does not quote the cut code', () => {
    const text = 'The proxy runs on Cloudflare Workers. Deploy the proxy with this configuration:\n\n```toml\nname = "kagent-proxy"\nmain = "src/worker.ts"';
    const answer = composeAnswer('How do I deploy the proxy?', [hit('proxy.md', text, { before: '', after: '\ncompatibility_date = "2025-04-01"\n```' })]);
    assert.doesNotMatch(answer, /```|name = /);
    // Nor the sentence announcing it, which would end the answer on a colon.
    assert.equal(answer, 'According to proxy.md:\n\nThe proxy runs on Cloudflare Workers. [1]');
  });

  test('a source that is one long code block gives its first lines, not "I don\'t know"', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `garden.plant('seed-${i}', { row: ${i} });`);
    const answer = composeAnswer('How do I plant seeds with the garden library?', [hit('garden.md', `\`\`\`js\n${lines.join('\n')}\n\`\`\``)]);
    assert.notEqual(answer, NO_ANSWER);
    assert.match(answer, /^According to garden\.md \[1\]:\n\n```js\ngarden\.plant\('seed-0'/);
    assert.match(answer, /seed-15/);
    assert.doesNotMatch(answer, /seed-16/);
  });

  test('quoted text cannot turn into markup or a citation marker', () => {
    const answer = composeAnswer('What does --seed take?', [hit('flags.md', 'Pass --seed <folder> and the *guide* explains it; see [2] and _notes_ for more.')]);
    assert.match(answer, /--seed \\<folder> and the \\\*guide\\\* explains it; see `\[2\]` and \\_notes\\_ for more\. \[1\]/);
    assert.deepEqual(markers(answer), [1]);
  });
});

describe('sources and markers', () => {
  const returns = hit('Returns policy', 'You can return any item within 30 days for a refund.');
  const timing = hit('Refund timing', 'A refund reaches your account within five days.');
  const shipping = hit('Shipping', 'Orders ship within two days.');
  const giftCards = hit('Gift cards', 'Gift cards can be refunded within 14 days.');

  test('each point carries the marker of its source, in the order of the sources; at most three sources', () => {
    const answer = composeAnswer('How many days for a refund?', [returns, timing, giftCards, hit('Fourth', 'A refund needs the receipt, within days.')]);
    assert.match(answer, /^Here is what the documents say:\n\n/);
    assert.match(answer, /30 days for a refund\. \[1\]/);
    assert.match(answer, /within five days\. \[2\]/);
    assert.match(answer, /within 14 days\. \[3\]/);
    assert.doesNotMatch(answer, /receipt|\[4\]/);
  });

  test('a source with nothing that matches is left out, and the next keeps its own number', () => {
    const answer = composeAnswer('When is a refund paid?', [returns, shipping, timing]);
    assert.deepEqual(markers(answer), [1, 3]);
    assert.doesNotMatch(answer, /Orders ship/);
    assert.match(answer, /within five days\. \[3\]/);
  });

  test('one source is named in the lead line', () => {
    assert.equal(composeAnswer('refund days', [timing]), 'According to Refund timing:\n\nA refund reaches your account within five days. [1]');
  });

  test('with no source, or nothing quotable, the agent says it does not know', () => {
    assert.equal(composeAnswer('quantum chromodynamics', []), NO_ANSWER);
    assert.equal(composeAnswer('refund', [hit('Empty', '   \n\n  ')]), NO_ANSWER);
  });
});

test('pieces know the heading they are under, also when it is only in the text before the fragment', () => {
  const pieces = piecesOf(hit('proxy.md', 'Run npx wrangler deploy.', { before: 'Cloudflare Workers\n\n', after: '' }));
  assert.deepEqual(pieces.map((piece) => [piece.kind, piece.heading, piece.text]), [['sentence', 'Cloudflare Workers', 'Run npx wrangler deploy.']]);
});

describe('a list item cut by the fragment', () => {
  test('a long list item the fragment starts and ends inside still gives its whole sentences', () => {
    const item = '- **Size** (of the single file). The parts were measured one by one. Measured by removing each part, the bundle is 32 KB gzipped: marked 15 KB, the rest 17 KB. The budget leaves 7 KB for the widget. Older releases were smaller';
    const cutAt = item.indexOf('The parts');
    const answer = composeAnswer('How big is the bundle gzipped?', [hit('sizes.md', item.slice(cutAt, item.indexOf('Older')), { before: item.slice(0, cutAt), after: item.slice(item.indexOf('Older')) })]);
    assert.match(answer, /Measured by removing each part, the bundle is 32 KB gzipped: marked 15 KB, the rest 17 KB\./, answer);
    assert.notEqual(answer, NO_ANSWER);
    assert.doesNotMatch(answer, /Older releases|single file/, 'the cut sentences are left out');
  });
});

describe('the line between a source and noise', () => {
  const render = () => undefined;
  test('passages above the threshold are the sources, one per document; none then is not "closest"', () => {
    const picked = pickSources([hit('a.md', 'A.', undefined, 0.9), hit('a.md', 'A again.', undefined, 0.8), hit('b.md', 'B.', undefined, 0.75), hit('c.md', 'C.', undefined, 0.6)], 0.7, render, 0.5);
    assert.deepEqual(picked.hits.map((h) => [h.datasource.name, h.score]), [['a.md', 0.9], ['b.md', 0.75]]);
    assert.equal(picked.closest, false);
  });

  test('with none above the threshold, the best passage at or above the closest line is the one source, marked closest', () => {
    const picked = pickSources([hit('a.md', 'A.', undefined, 0.62), hit('b.md', 'B.', undefined, 0.55)], 0.7, render, 0.5);
    assert.deepEqual(picked.hits.map((h) => h.datasource.name), ['a.md']);
    assert.equal(picked.sources.length, 1);
    assert.equal(picked.closest, true);
  });

  test('a figure question\'s closest passage is the best close one giving a measure, when one does', () => {
    const close = [hit('build.md', 'The build writes the script to dist/ in step 2.', undefined, 0.66), hit('sizes.md', 'The script weighs 12.5 KB gzipped.', undefined, 0.62), hit('far.md', 'It loads in 80 ms.', undefined, 0.4)];
    const figure = (found: Retrieved) => holdsMeasure(found.fragment.text);
    assert.deepEqual(pickSources(close, 0.7, render, 0.5, figure).hits.map((h) => h.datasource.name), ['sizes.md']);
    // None close enough gives one: the best close passage all the same; and a step or version number is no measure.
    assert.deepEqual(pickSources([close[0]!, close[2]!], 0.7, render, 0.5, figure).hits.map((h) => h.datasource.name), ['build.md']);
    assert.deepEqual(['Node 20 or later.', 'Step 2.', '15 KB', '120 ms', 'a 3% rise', '1,024 bytes'].map(holdsMeasure), [false, false, true, true, true, true]);
  });

  test('below the closest line nothing is a source', () => {
    const picked = pickSources([hit('a.md', 'A.', undefined, 0.45)], 0.7, render, 0.5);
    assert.deepEqual(picked.sources, []);
    assert.equal(picked.closest, false);
  });

  test('the closest passage is quoted as such, with its marker, never as "I don\'t know"', () => {
    const answer = composeAnswer('Can the kettle boil milk?', [hit('kettle.md', 'The kettle boils water in two minutes.', undefined, 0.6)], { closest: true });
    assert.match(answer, new RegExp(`^${CLOSEST}, in kettle\\.md:\n\nThe kettle boils water in two minutes\\. \\[1\\]$`), answer);
  });
});

describe('the passage that answers the kind of question asked', () => {
  test('the kind of question is read from its wording', () => {
    assert.deepEqual(intentOf('How big is the bundle?'), { how: true, figure: true, list: false, overview: false });
    assert.deepEqual(intentOf('Which ports does the server open?'), { how: false, figure: false, list: true, overview: false });
    assert.deepEqual(intentOf('What flags does the tool take?'), { how: false, figure: false, list: true, overview: false });
    assert.deepEqual(intentOf('What does the server do?'), { how: false, figure: false, list: false, overview: true });
    assert.deepEqual(intentOf('What is a trellis?'), { how: false, figure: false, list: false, overview: true });
    assert.deepEqual(intentOf('What are raised beds'), { how: false, figure: false, list: true, overview: true });
    assert.deepEqual(intentOf('What does the gardener see when frost comes?'), { how: false, figure: false, list: false, overview: false });
    assert.deepEqual(intentOf('What is the refund policy for annual plans?'), { how: false, figure: false, list: false, overview: false });
    assert.deepEqual(intentOf('What happens when the disk is full?'), { how: false, figure: false, list: false, overview: false });
    assert.deepEqual(intentOf('How do I restart the server?'), { how: true, figure: false, list: false, overview: false });
  });

  test('a question typed in haste is read as the same kind ("hows", "whats", "what\'s")', () => {
    assert.deepEqual(intentOf('hows the server restarted'), intentOf('how is the server restarted'));
    assert.deepEqual(intentOf('whats a trellis'), intentOf('what is a trellis'));
    assert.deepEqual(intentOf("What's a trellis?"), intentOf('What is a trellis?'));
    assert.deepEqual(intentOf("What's the way to prune roses before the first frost?"), intentOf('What is the way to prune roses before the first frost?'));
  });

  test('a caveat beside the answer does not lead the quote, nor come with it', () => {
    const text = 'The daily budget caps what the bots can spend, and sessions make each bot pay. Neither the budget nor the sessions stop bots from reading answers on the page, whatever the bots spend.';
    const answer = composeAnswer('How do I stop bots from spending my budget?', [hit('guard.md', text)]);
    assert.match(answer, /The daily budget caps what the bots can spend/, answer);
    assert.doesNotMatch(answer, /Neither/, answer);
  });

  test('a figure question gets the sentence holding the figure', () => {
    const text = 'The kettle is small and light, made for small kitchens.\n\nIts lid opens wide.\n\nThe kettle holds 1.2 litres and weighs 900 grams.';
    const answer = composeAnswer('How big is the kettle?', [hit('kettle.md', text)]);
    assert.match(answer, /The kettle holds 1\.2 litres/, answer);
    assert.doesNotMatch(answer, /small kitchens/, answer);
  });

  test('a how-to gets the sentence naming what to set beside the one that matches its words', () => {
    const paragraph = 'Custom properties: `--glow`, `--shade`, `--base`. Colours default to warm white; a value you set is used day and night. Where the browser lacks colour mixing, the lamp has one plain colour look.';
    const cutAt = paragraph.indexOf('Colours') + 9;
    const fragment = paragraph.slice(cutAt);
    const answer = composeAnswer("How do I change the lamp's colours?", [hit('lamp.md', fragment, { before: `# Settings\n\nIt glows.\n\n${paragraph.slice(0, cutAt)}`, after: '' })]);
    assert.match(answer, /Custom properties: `--glow`, `--shade`, `--base`\. Colours default to warm white; a value you set is used day and night\. \[1\]/, answer);
    assert.doesNotMatch(answer, /Where the browser lacks/, 'the caveat is left out');
  });

  test('a "which" question gets the table whole, not only the rows that share its words', () => {
    const text = 'The command takes these flags:\n\nFlag | Default | Meaning\nFlag: --port <n>; Default: 8080; Meaning: Port to listen on.\nFlag: --host <address>; Default: 127.0.0.1; Meaning: Address of the server.\nFlag: --data <folder>; Default: memory; Meaning: Where the server keeps its files.\nFlag: --quiet; Default: off; Meaning: Print nothing.';
    const answer = composeAnswer('Which flags does the server command take?', [hit('cli.md', text)]);
    for (const flag of ['--port', '--host', '--data', '--quiet']) assert.match(answer, new RegExp(`^\\| ${flag}`, 'm'), answer);
    const matchingOnly = composeAnswer('Where does the server keep its files?', [hit('cli.md', text)]);
    assert.doesNotMatch(matchingOnly, /--quiet/, 'another question gets the rows it asks about');
  });

  test('a "which" question gets a table the fragment starts inside from its header row on, before a sentence that names its words', () => {
    const table = 'Flag | Default | Meaning\nFlag: --port <n>; Default: 8080; Meaning: Port to listen on.\nFlag: --host <address>; Default: 127.0.0.1; Meaning: Address of the server.\nFlag: --data <folder>; Default: memory; Meaning: Where the server keeps its files.\nFlag: --quiet; Default: off; Meaning: Print nothing.';
    const cutAt = table.indexOf('Flag: --data');
    const after = '\n\nThe server reads its flags once; the other flags of the server are in its guide.';
    const answer = composeAnswer('What flags does the server take?', [hit('cli.md', `${table.slice(cutAt)}${after}`, { before: `# Server\n\n${table.slice(0, cutAt)}`, after: '' })]);
    assert.match(answer, /\| Flag \| Default \| Meaning \|\n\|---\|---\|---\|\n\| --port \\<n> \| 8080 \|/, answer);
    for (const flag of ['--host', '--data', '--quiet']) assert.match(answer, new RegExp(`^\\| ${flag}`, 'm'), answer);
    assert.doesNotMatch(answer, /reads its flags once/, answer);
  });
});

describe('an overview question gets the section that lists the options', () => {
  /** A fragment of a made-up guide, in the section `path`. */
  const inSection = (id: string, path: string[], text: string, score: number): Retrieved => {
    const found = hit('guide.md', text, { before: '', after: '' }, score);
    return { ...found, fragment: { ...found.fragment, id, section: path } } as Retrieved;
  };
  const hits = [
    inSection('sea', ['Guide', 'Shipping', 'Ship by sea'], 'Book a container, then ship the parcel from the port.', 0.97),
    inSection('air', ['Guide', 'Shipping', 'Ship by air'], 'Weigh the parcel, then ship it from the airport.', 0.96),
    inSection('all', ['Guide', 'Shipping'], 'A parcel ships by sea or by air; each way is below.', 0.95),
  ];

  test('a question naming no option ("how do I ship ...") leads with the section above the options', () => {
    assert.deepEqual(
      overviewFirst(hits, 'How do I ship my parcel?').map((found) => found.fragment.id),
      ['all', 'sea', 'air'],
    );
    // Scored as the best of its subsections: sources stay best first.
    assert.deepEqual(overviewFirst(hits, 'How do I ship my parcel?').map((found) => found.score), [0.97, 0.97, 0.96]);
  });

  test('a question naming one option keeps that option first', () => {
    assert.deepEqual(
      overviewFirst(hits, 'How do I ship my parcel by air?').map((found) => found.fragment.id),
      ['sea', 'air', 'all'],
    );
    assert.deepEqual(
      overviewFirst(hits, 'How do I ship by sea?').map((found) => found.fragment.id),
      ['sea', 'air', 'all'],
    );
  });

  test('without the section itself among the fragments found, or with one option only, the order is the scores\'', () => {
    assert.deepEqual(overviewFirst(hits.slice(0, 2), 'How do I ship my parcel?').map((found) => found.fragment.id), ['sea', 'air']);
    assert.deepEqual(overviewFirst([hits[0]!, hits[2]!], 'How do I ship my parcel?').map((found) => found.fragment.id), ['sea', 'all']);
  });
});

test('an everyday word of the question ("use", "show") weighs a third in the quote too: the sentence holding what is asked leads', () => {
  // Two everyday words of the question in one paragraph, its two words that say what is asked in the other.
  const text = 'Start with the beds you use most.\n\nThe planner listens on port 8080.';
  const answer = composeAnswer('What port does the planner use at start?', [hit('planner.md', text)]);
  assert.deepEqual(quoted(answer), ['The planner listens on port 8080.'], answer);
});
