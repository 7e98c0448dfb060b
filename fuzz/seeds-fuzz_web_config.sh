#!/usr/bin/env bash
# Seeds for fuzz_web_config: the exporter toolkit's web configuration, good
# (TLS, users, both) and refused (a key we do not honour, one PEM alone,
# a duplicate key, not YAML).
#   fuzz/seeds-fuzz_web_config.sh DIR
set -eu
dir=$1
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n' >"$dir/tls"
printf 'basic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuuLNyVgYGeJ9P4dJXHs6QcqQgU5pmvW6\n  bob: "$2b$05$xyz"\n' >"$dir/users"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  a: $2y$04$x\n' >"$dir/both"
printf 'tls_server_config:\n  cert_file: cert.pem\n  client_ca_file: ca.pem\n' >"$dir/unsupported"
printf 'tls_server_config:\n  cert_file: cert.pem\n' >"$dir/one-pem"
printf 'basic_auth_users:\n  a: x\n  a: y\n' >"$dir/dup"
printf '[{ : ]\n\t- x' >"$dir/not-yaml"
