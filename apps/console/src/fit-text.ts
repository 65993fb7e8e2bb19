/** Fitting a label into a fixed width by measuring it, never by guessing a width per character. */

export const ELLIPSIS = '…';

/**
 * The text with its middle replaced by an ellipsis, keeping `keep` of its characters: the start and the end stay,
 * because names of one composition often share a prefix and differ in their last characters.
 */
export function shortenInMiddle(text: string, keep: number): string {
  const characters = Array.from(text);
  if (keep >= characters.length) {
    return text;
  }
  const kept = Math.max(0, keep);
  const head = Math.ceil(kept / 2);
  const tail = kept - head;
  return `${characters.slice(0, head).join('')}${ELLIPSIS}${characters.slice(characters.length - tail).join('')}`;
}

/**
 * The longest form of the text whose measured width is at most `room`: the text itself when it fits, otherwise the
 * text shortened in its middle. `measure` gives a candidate's width as rendered (the caller's font); a width grows
 * with the characters kept, so a binary search finds the longest that fits.
 */
export function fitText(text: string, room: number, measure: (candidate: string) => number): string {
  if (measure(text) <= room) {
    return text;
  }
  let fits = 0;
  let tooLong = Array.from(text).length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (measure(shortenInMiddle(text, middle)) <= room) {
      fits = middle;
    } else {
      tooLong = middle;
    }
  }
  return shortenInMiddle(text, fits);
}
