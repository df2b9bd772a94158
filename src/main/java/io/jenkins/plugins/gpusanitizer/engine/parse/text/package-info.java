/**
 * compute-sanitizer's text log, streamed in bounded memory (a second thread reads ahead) and cut into
 * records: headlines, details, frames, the summary, the tool's own refusals.
 */
package io.jenkins.plugins.gpusanitizer.engine.parse.text;
