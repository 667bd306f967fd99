/** What ends the server's process: an {@link java.lang.OutOfMemoryError}, wherever it is seen. */
package io.reactiveregistry.server.process;
