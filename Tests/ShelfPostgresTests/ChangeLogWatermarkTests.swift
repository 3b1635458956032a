#if PostgreSQL
    import PostgresNIO
    @testable import ShelfPostgres
    import ShelfStore
    import Testing

    /// The ordered reader's watermark (`ChangeLogWatermark`, `ChangeLog.ordered`) against a real
    /// server: it never passes a seq that may still commit, and passes one that never will as
    /// soon as the transactions that could hold it have ended, whatever starts later.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct ChangeLogWatermarkTests {
        private static func advance(_ watermark: inout ChangeLogWatermark, on reader: PostgresConnection)
            async throws
        {
            let read = try await ChangeLog.ordered(after: watermark.position, limit: 100, on: reader)
            watermark.advance(read.snapshot)
        }

        @Test func theWatermarkWaitsForALowerSeqCommittedLate() async throws {
            try await LiveTestDatabase.with { database in
                let reader = try await database.connect()
                let early = try await database.connect()
                let late = try await database.connect()
                // `early` takes seq 1 and commits after `late`, which takes seq 2.
                try await early.run("BEGIN", "INSERT INTO items (title) VALUES ('early')")
                try await late.run("INSERT INTO items (title) VALUES ('late')")
                var watermark = ChangeLogWatermark(position: 0)
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 0, "seq 2 is visible, but seq 1 may still commit")
                #expect(watermark.pending.gaps.map(\.seqs) == [1...1])
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 0)
                try await early.run("COMMIT")
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 2)
                #expect(watermark.pending.isEmpty)
            }
        }

        @Test func aRolledBackSeqIsPassedOnceItsHoldersEndedWhateverStartedLater() async throws {
            try await LiveTestDatabase.with { database in
                let reader = try await database.connect()
                let early = try await database.connect()
                let late = try await database.connect()
                let later = try await database.connect()
                try await early.run("BEGIN", "INSERT INTO items (title) VALUES ('never')")
                try await late.run("INSERT INTO items (title) VALUES ('late')")
                var watermark = ChangeLogWatermark(position: 0)
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 0)
                // A writer that starts after the gap was first seen, and stays open.
                try await later.run("BEGIN", "INSERT INTO items (title) VALUES ('open')")
                try await early.run("ROLLBACK")
                // Seq 1 never commits: its holders (the transactions open when it was first seen
                // missing) have ended, and `later` was not one of them. (Polled: a transaction of
                // another test's database may have been open then too.)
                try await waitUntil("the rolled-back seq is passed") {
                    try await Self.advance(&watermark, on: reader)
                    return watermark.position == 2
                }
                try await later.run("COMMIT")
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 3)
            }
        }
        /// A writer that got its transaction ID after the last transaction that completed, and
        /// still runs, is in no snapshot's `xip` (`xmax` is that last one plus one): its seq,
        /// below a visible one, must still hold the watermark back. Before, the gap had no
        /// holders, was passed at once, and a live window counted that insert never (CI ci10d,
        /// ci10e: aHundredForcedReconnects… off by one or two under load).
        @Test func aWriterAboveTheSnapshotsXmaxHoldsItsSeq() async throws {
            try await LiveTestDatabase.with { database in
                let reader = try await database.connect()
                let first = try await database.connect()
                let second = try await database.connect()
                // `first` gets its ID, then `second` a higher one and seq 1; `first` takes seq 2
                // and commits: it is the last transaction that completed, below `second`.
                let firstID = try await Self.begin(first)
                try await second.run("BEGIN", "INSERT INTO items (title) VALUES ('second')")
                let secondID = try await second.integer("SELECT pg_current_xact_id()::text::bigint")
                try #require(secondID > firstID)
                try await first.run("INSERT INTO items (title) VALUES ('first')", "COMMIT")
                var watermark = ChangeLogWatermark(position: 0)
                for _ in 0..<2 {
                    try await Self.advance(&watermark, on: reader)
                    #expect(watermark.position == 0, "seq 2 is visible, but `second` holds seq 1 and runs")
                }
                try await second.run("COMMIT")
                try await Self.advance(&watermark, on: reader)
                #expect(watermark.position == 2)
            }
        }

        /// The same, without a server: a snapshot whose `xmax` is at the running writer's ID
        /// (so `xip` omits it), and the sessions that show it.
        @Test func aGapHeldByARunningWriterAtXmaxIsNotPassed() {
            let writer: Int64 = (7 << 32) + 1000
            let snapshot = ChangeLogWatermark.Snapshot(
                seqs: [2], xmin: writer, xmax: writer, inProgress: [],
                candidates: ChangeLog.candidates([], sessions: [-(writer & 0xFFFF_FFFF), 55], xmax: writer),
                prunedThrough: 0)
            #expect(snapshot.candidates == [writer])
            var watermark = ChangeLogWatermark(position: 0)
            watermark.advance(snapshot)
            watermark.advance(snapshot)
            #expect(watermark.position == 0)
            // It ended (a later transaction completed; it is no longer running), without its seq.
            watermark.advance(
                ChangeLogWatermark.Snapshot(
                    seqs: [2], xmin: writer + 2, xmax: writer + 2, inProgress: [], candidates: [], prunedThrough: 0))
            #expect(watermark.position == 2)
        }

        /// Begins a transaction on `connection` and gives it an ID; returns the ID.
        private static func begin(_ connection: PostgresConnection) async throws -> Int {
            try await connection.run("BEGIN")
            return try await connection.integer("SELECT pg_current_xact_id()::text::bigint")
        }
    }
#endif
