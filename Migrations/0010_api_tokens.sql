-- API tokens for `shelf serve` (`shelf tokens create|list|revoke`). Only a token's SHA-256
-- hash is kept (hex, token_hash): the token itself is printed once and stored nowhere. A token
-- acts for its user and goes with them; read_only tokens may only read. Kept in the database,
-- so every server on it honours the same tokens.

CREATE TABLE api_tokens (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL CONSTRAINT api_token_name_valid CHECK (length(name) BETWEEN 1 AND 200),
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT    NOT NULL,
    read_only  INTEGER NOT NULL DEFAULT 0 CONSTRAINT api_token_read_only_valid CHECK (read_only IN (0, 1)),
    created_at INTEGER NOT NULL,
    CONSTRAINT api_token_name_unique UNIQUE (name),
    CONSTRAINT api_token_hash_unique UNIQUE (token_hash)
);

CREATE INDEX api_tokens_by_user ON api_tokens (user_id);
