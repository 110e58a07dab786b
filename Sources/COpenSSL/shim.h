#ifndef WSPIPE_COPENSSL_SHIM_H
#define WSPIPE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>

// Macros that Swift cannot import as functions.
static inline long wspipe_SSL_set_tlsext_host_name(SSL *s, const char *name) {
    return SSL_set_tlsext_host_name(s, name);
}
static inline long wspipe_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long wspipe_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) {
    return SSL_CTX_set_min_proto_version(ctx, v);
}
static inline void wspipe_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) {
    SSL_CTX_set_read_ahead(ctx, yes);
}

// SHA-1 through the low-level API: unlike SHA1()/EVP, it does not trigger
// OpenSSL's library initialisation (config file, providers), which would
// cost a plain ws:// connection about a millisecond at start-up.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void wspipe_sha1(const void *data, size_t count, unsigned char digest[20]) {
    SHA_CTX context;
    SHA1_Init(&context);
    SHA1_Update(&context, data, count);
    SHA1_Final(digest, &context);
}
#pragma GCC diagnostic pop
#endif
