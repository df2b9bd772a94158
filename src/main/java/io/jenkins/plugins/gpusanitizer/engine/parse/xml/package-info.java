/**
 * compute-sanitizer's XML ({@code --xml --save}): StAX without external entities, tolerant of a cut
 * file; a large file is read in pieces on several threads with the result of one read.
 */
package io.jenkins.plugins.gpusanitizer.engine.parse.xml;
