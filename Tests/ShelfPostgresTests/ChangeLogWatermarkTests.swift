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
    }
#endif
