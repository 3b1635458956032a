import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL server the tests use: `SHELF_TEST_POSTGRES` names it as a URL, e.g.
/// `postgres://postgres:secret@127.0.0.1:5432/postgres` (a user that may create databases).
/// Without it, or without the PostgreSQL trait, the PostgreSQL tests are skipped.
enum PostgresServer {
    static var url: String? {
        #if PostgreSQL
            environmentValue("SHELF_TEST_POSTGRES")
        #else
            nil
        #endif
    }
}

private func environmentValue(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}
