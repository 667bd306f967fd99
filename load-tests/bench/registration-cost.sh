#!/usr/bin/env bash
# Registrations/s and server CPU per registration of one server jar, 128 in flight and alone on
# each of 50 connections: request-cost.sh's registration shapes.
# Usage: load-tests/bench/registration-cost.sh [server-jar]   (default: this checkout's jar)
exec "$(dirname "$0")/request-cost.sh" "${1:-reactive-registry-server/target/reactive-registry-server.jar}" registrations
