// A question about money is answered only from a passage that states a price. "How much does the
// hosted service cost per month?" shares cost, service and per with a passage on what a session
// costs in CPU, and word for word that passage matches it well; yet it cannot answer, because it
// names no price. Question answering systems check a passage for the type of answer the question
// asks for (a price, a date, a person) before answering from it; the figure questions' closest
// passage is one giving a measure (compose.ts), and a price question's sources are passages that
// state a price. It is a check of the answer, not of the search: the search still ranks the
// passages by their words ("charge" in a scientific claim is no price).

/** Words that ask what something costs in money. */
const PRICE_WORDS = /\b(?:cost|costs|costing|price|prices|priced|pricing|fee|fees|charge|charges|charged|billed|billing|expensive|cheap|cheaper|cheapest|afford)\b/i;

/** A quantity that is not money: "what does a request cost in CPU?" asks for a measure, which the documents may well hold. */
const MEASURES = /\b(?:cpu|memory|ram|heap|latency|delay|time|seconds?|ms|milliseconds?|bytes?|kb|mb|gb|size|bandwidth|speed|performance|tokens?)\b/i;

/**
 * A price as a passage states one: an amount with its currency, or that something is free. A
 * passage that only names prices ("see the pricing page", "what a request costs") states none.
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
