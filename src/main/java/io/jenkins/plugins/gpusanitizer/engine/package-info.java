/** Everything that thinks: parsers, findings, diagnosis, gate, report. Plain Java, no Jenkins. */
package io.jenkins.plugins.gpusanitizer.engine;
