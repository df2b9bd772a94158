/**
 * A phase's process: the POSIX supervisor ({@code supervise.sh}) and the scripts it runs, starting it
 * locally or through a Jenkins launcher ({@link io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter}),
 * following it by its files, and killing its whole process tree.
 */
package io.jenkins.plugins.gpusanitizer.engine.run.process;
