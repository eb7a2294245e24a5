// What kind of answer a question expects, where word matching cannot see it.
// "How much does the hosted service cost per month?" shares its words with a
// passage on the proxy's CPU cost per request, and word for word that passage
// matches it well; yet it cannot answer, because it names no price. Question
// answering systems have long checked a passage for the type of answer the
// question asks for (a price, a date, a person) before answering from it. The
// emulator does so for one type, the one its documents' own words (cost, per,
// service) most often stand in for: a price.

/** Words that ask what something costs in money. */
const PRICE_WORDS = /\b(?:cost|costs|costing|price|prices|priced|pricing|fee|fees|charge|charges|charged|billed|billing|expensive|cheap|cheaper|cheapest|afford)\b/i;

/** A quantity that is not money: "what does a request cost in CPU?" asks for a measure, which the documents may well hold. */
const MEASURES = /\b(?:cpu|memory|ram|heap|latency|delay|time|seconds?|ms|milliseconds?|bytes?|kb|mb|gb|size|bandwidth|speed|performance|tokens?)\b/i;

/**
 * A price as a passage states one: an amount with its currency, or that something is free. A passage
 * that only names prices ("see the pricing page", "what a request costs") states none.
 */
const STATED_PRICE =
  /[$€£¥₹₩₽]\s?\d|\d\s?(?:[€£¥₹₩₽¢]|(?:usd|eur|gbp|jpy|chf|cad|aud|inr|cny|dollars?|euros?|pounds?|cents?)\b)|\b(?:is|are|stays?|for) free\b|\bfree (?:of charge|tier|plan|to use)\b|\bno (?:cost|charge)\b|\bcosts? nothing\b/i;

/** Whether `question` asks what something costs in money. */
export function asksForPrice(question: string): boolean {
  return PRICE_WORDS.test(question) && !MEASURES.test(question);
}

/** Whether `text` states a price (or that there is none to pay). */
export function statesPrice(text: string): boolean {
  return STATED_PRICE.test(text);
}
