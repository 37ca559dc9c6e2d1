// Bytes that are an HTML page where a file was expected: what a single-page-app host answers for a path it
// lacks. One test for every place that reads such bytes (model files, images, runtime files).

/** An HTML document's opening (after a BOM and whitespace): no image, model or runtime file starts like one. */
export function isHtmlPage(bytes: Uint8Array): boolean {
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 256))
    .replace(/^\uFEFF/, '')
    .trimStart();
  return /^<(!doctype\s+html|html|head|body|meta|title|script|link|style|!--)[\s>/]/i.test(head);
}
