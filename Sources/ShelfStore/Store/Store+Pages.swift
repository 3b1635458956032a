extension Store {
    /// Every item `query` selects, in its order (as `items.items(matching:)` lists them), a
    /// page at a time, all from one consistent snapshot: for reading a whole result, however
    /// large, while other tasks and processes go on writing.
    ///
    /// ```swift
    /// for try await page in store.itemPages(matching: ItemQuery(status: .open), pageSize: 500) {
    ///     for item in page { print(item.title) }
    /// }
    /// ```
    ///
    /// - Blocks: nothing that tasks share. `next()` suspends while a page is read. On SQLite
    ///   the read runs on a thread of its own, holding one of the store's four reader
    ///   connections and its read transaction until it ends; on PostgreSQL a task holds one
    ///   pooled connection in a `REPEATABLE READ READ ONLY` transaction. Reads beyond the
    ///   readers or the pool wait for one, so end a read you no longer need.
    /// - Snapshot: taken when the first page is read (each `for` loop, that is each iterator,
    ///   reads a snapshot of its own). Writes committed meanwhile, here or in other processes,
    ///   proceed and are not seen: the pages are the list as it was at that moment.
    /// - Pages: `pageSize` items each, the last one 1 to `pageSize` items; no empty page (an
    ///   empty result ends at once). The read runs at most one page ahead of the consumer, so
    ///   about three pages are in memory at most.
    /// - Ending: the read ends, its snapshot and connection released, after the last page,
    ///   when the loop is left early (`break`, a throw), when the consuming task is cancelled
    ///   (`next()` then throws `CancellationError`), or when the store is closed (`next()` then
    ///   throws `StoreError` with code `.closed`; `close()` does not wait for the loop).
    /// - Throws: from `next()`: `StoreError` (`.invalidValue` for a `pageSize` below 1,
    ///   `.closed` when the store is closed, `.database` when the read fails); once, then the
    ///   sequence ends.
    public func itemPages(matching query: ItemQuery = ItemQuery(), pageSize: Int = 1000) -> SnapshotPages<Item> {
        let backend = self.backend
        let reads = snapshotReads
        return SnapshotPages { sink in
            guard pageSize >= 1 else {
                throw StoreError(.invalidValue, "a page size must be 1 or more, not \(pageSize)")
            }
            try await reads.run(sink) {
                try await backend.readItemPages(matching: query, pageSize: pageSize, into: sink)
            }
        }
    }
}
