/// Where a store's content stands: equal versions of one store mean that nothing an item or
/// user read can return has changed between them (no item, user or schema change committed, by
/// any process). For answers kept while nothing changes (the server's list pages).
package struct StoreContentVersion: Hashable, Sendable {
    /// The change log's head: every commit that changes items or users moves it.
    package let changes: Int64
    /// The schema's version: a table rebuilt or dropped logs no rows but changes reads.
    package let schema: Int64
    /// Whether the store held an API token at that moment, read in the same statement: a
    /// server asks it of every request, and one read then answers both (issue 24).
    package let hasTokens: Bool

    package init(changes: Int64, schema: Int64, hasTokens: Bool = false) {
        self.changes = changes
        self.schema = schema
        self.hasTokens = hasTokens
    }
}

extension Store {
    /// The store's content version now (`StoreContentVersion`), in one statement; nil when the
    /// backend cannot give one whose equality means unchanged content (a PostgreSQL change log
    /// orders changes by sequence, which transactions do not commit in).
    ///
    /// Read it BEFORE the reads whose answer is kept: they then see the store at that version
    /// or later, never earlier.
    package func contentVersion() async throws -> StoreContentVersion? {
        try await backend.contentVersion()
    }
}
