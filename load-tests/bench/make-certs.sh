#!/usr/bin/env bash
# Makes, in directory $1, a throwaway CA (ca.pem, ca.key) and a server certificate for 127.0.0.1
# signed by it (server.pem, server.key): EC P-256, valid one day. For the benchmarks' TLS runs.
set -euo pipefail
cd "$1"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -keyout ca.key -out ca.pem -days 1 \
  -subj /CN=bench-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -keyout server.key -out server.csr \
  -subj /CN=registry 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext \
  -out server.pem 2>/dev/null
