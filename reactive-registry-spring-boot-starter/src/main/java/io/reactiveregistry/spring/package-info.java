/**
 * Spring Boot auto-configuration of the registry client and Spring Cloud's discovery,
 * service-registry and load-balancer contracts on it.
 */
@NullMarked
package io.reactiveregistry.spring;

import org.jspecify.annotations.NullMarked;
