/** A text answer (DOT, Mermaid) that the response interceptor sends as it is, with its own media type. */
export class TextBody {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}
