/// Where a store's content stands: equal versions of one store mean that nothing an item or
/// user read can return has changed between them (no item, user or schema change committed, by
/// any process). For answers kept while nothing changes (the server's list pages).
package struct StoreContentVersion: Hashable, Sendable {
    /// The change log's head: every commit that changes items or users moves it.
    package let changes: Int64
    /// The schema's version: a table rebuilt or dropped logs no rows but changes reads.
    package let schema: Int64

    package init(changes: Int64, schema: Int64) {
        self.changes = changes
        self.schema = schema
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
