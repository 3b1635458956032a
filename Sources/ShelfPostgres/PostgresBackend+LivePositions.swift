#if PostgreSQL
    internal import PostgresNIO
    package import ShelfReactive
    package import ShelfStore
    internal import Synchronization

    extension PostgresBackend {
        /// How many log rows one read of a live window's position looks at, at most: past a
        /// larger burst the position takes more than one read to catch up.
        static let positionReadLimit = 10_000
        /// The longest wait before a live window whose position is not settled reads again.
        static let positionRetryCeiling: Duration = .milliseconds(100)

        /// `liveItems`' windows with their positions (`LivePosition`): each window is published
        /// with the log's head `H` of the snapshot it was read in, and only once every seq up to
        /// `H` is settled there (visible, or known never to commit, `ChangeLogWatermark`): the
        /// window is then exactly what a fresh read returns at `H`. A read in a snapshot where a
        /// transaction still in progress may commit a seq below `H` (commits out of seq order)
        /// is read again after 2 ms, doubling to 100 ms, until one is settled; meanwhile the
        /// last window stays published. A window equal to the last keeps the last position, so
        /// positions grow strictly with every publication.
        package func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
            -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
        {
            let page = try query.postgresPage(cursor: anchor, backward: false, limit: limit)
            let count = query.postgresCount()
            let positions = WindowPositions()
            return try await live(reading: ["items"]) { pool in
                var delay = Duration.milliseconds(2)
                while true {
                    let after = positions.watermark?.position
                    let (window, read) = try await pool.transaction(
                        isolation: "REPEATABLE READ READ ONLY", retryable: true
                    ) {
                        connection in
                        // The window, its count and the log from one snapshot.
                        let items = try await PostgresItemRepository.items(page, on: connection)
                        let totals: [Int64] = try await connection.query(count, logger: .silent).all((Int64).self)
                        let read = try await ChangeLog.ordered(
                            after: after, limit: Self.positionReadLimit, on: connection)
                        return (ItemWindow(items: items, totalCount: Int(totals.first ?? 0)), read)
                    }
                    if let snapshot = positions.absorb(window, read) { return snapshot }
                    try await Task.sleep(for: delay)
                    delay = min(delay * 2, Self.positionRetryCeiling)
                }
            }
        }
    }

    /// The position state of one live window: its watermark in the change log, and what it
    /// published last. Its fetches never run two at once (`PostgresLiveQuery`); the lock is for
    /// the Sendable checker and costs nothing contended.
    private final class WindowPositions: Sendable {
        private struct State {
            var watermark: ChangeLogWatermark?
            var last: LiveSnapshot<ItemWindow>?
        }

        private let state = Mutex(State())

        var watermark: ChangeLogWatermark? { state.withLock { $0.watermark } }

        /// The snapshot to publish for `window`, read with `read`, or nil when the read's head is
        /// not settled yet and the window differs from the last published (read again).
        func absorb(_ window: ItemWindow, _ read: OrderedChangeLogRead) -> LiveSnapshot<ItemWindow>? {
            state.withLock { state in
                var watermark =
                    state.watermark ?? ChangeLogWatermark(position: max(0, read.head - ChangeLog.startWindow))
                watermark.advance(read.snapshot)
                state.watermark = watermark
                if let last = state.last, last.value == window { return last }
                // Settled through the head (and the read saw every row up to it): exactly the
                // window at the head.
                guard watermark.position == read.head, !read.isFull else { return nil }
                let snapshot = LiveSnapshot(value: window, position: LivePosition(sequence: read.head))
                state.last = snapshot
                return snapshot
            }
        }
    }
#endif
