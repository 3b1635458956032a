#if PostgreSQL
    package import ShelfReactive
    package import ShelfStore

    extension PostgresBackend {
        /// `liveItems`' windows with their positions (`LivePosition`), shared by key with every
        /// other live window of the same query, anchor and limit (`PostgresLiveWindows`). A
        /// window is published with the log's head `H` of the snapshot it was judged or read
        /// in, and only once every seq up to `H` is settled there (visible, or known never to
        /// commit, `ChangeLogWatermark`): it is then exactly what a fresh read returns at `H`.
        /// While a transaction still in progress may commit a seq below `H` (commits out of seq
        /// order), passes follow after 2 ms, doubling to 100 ms, until one is settled; meanwhile
        /// the last settled window stays published. Returns once the first is.
        package func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
            -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
        {
            try pool.checkOpen()
            let entry = try await windows.entry(for: LiveWindowKey(query: query, anchor: anchor, limit: limit))
            return try await windows.settledSnapshots(of: entry)
        }
    }
#endif
