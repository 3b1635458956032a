#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    extension PostgresImportSession {
        /// The email comparison of the store (ASCII letter case ignored), between two expressions.
        static func sameEmail(_ left: String, _ right: String) -> String {
            "shelf_fold(\(left)) COLLATE \"C\" = shelf_fold(\(right)) COLLATE \"C\""
        }

        package func apply(
            mode: ImportMode, commit: Bool, continues: Bool, isCancelled: () -> Bool, willCommit: () -> Bool,
            beforeEnd: (any ImportSession) throws -> Void
        ) throws -> ImportCounts {
            var committing = false
            do {
                return try applyStaged(
                    mode: mode, commit: commit, continues: continues, isCancelled: isCancelled,
                    willCommit: willCommit, beforeEnd: beforeEnd, committing: &committing)
            } catch let error as StoreError where error.isLostConnection {
                throw Self.lost(error, committing: committing)
            }
        }

        /// `error`, a lost connection, with what it left undone: nothing, unless it was lost
        /// while the server committed (then nobody can tell from here).
        static func lost(_ error: StoreError, committing: Bool = false) -> StoreError {
            guard !error.message.contains("; nothing was imported") else { return error }
            let outcome =
                committing
                ? "; it was lost during the commit, so the import may or may not be in the store: look at the store"
                : "; nothing was imported"
            return StoreError(error.code, error.message + outcome)
        }

        private func applyStaged(
            mode: ImportMode, commit: Bool, continues: Bool, isCancelled: () -> Bool, willCommit: () -> Bool,
            beforeEnd: (any ImportSession) throws -> Void, committing: inout Bool
        ) throws -> ImportCounts {
            try flush()
            if isCancelled() { throw CancellationError() }
            // A killed import's long statement ends within a second (`PostgresCopyRows.watchClient`).
            do {
                try execute(PostgresCopyRows.watchClientSQL)
            } catch {
                PostgresPool.logger.debug("the server does not check for a vanished client: \(error)")
            }
            try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            var moved: MovedSequence?
            do {
                // One import's apply at a time per table. Two applies at once over the same IDs
                // would each insert what the other has not committed yet: the second then waits
                // on the first's rows, fails with a duplicate key when it commits, and falls
                // back to the row-by-row path (82 s instead of 1 s for 20,000 items). Waiting
                // here instead, the second runs set-based too, after the first, and (READ
                // COMMITTED: each statement sees what committed before it) sees its rows.
                try execute(
                    "SELECT pg_advisory_xact_lock(hashtext('shelf_import'), \(table == .users ? 1 : 2))")
                moved = try advanceSequence()
                var counts = ImportCounts()
                appliedRowByRow = false
                if try !applyAll(mode: mode, counts: &counts) {
                    appliedRowByRow = true
                    if isCancelled() { throw CancellationError() }
                    counts = ImportCounts()
                    try applyRows(mode: mode, continues: continues, counts: &counts, isCancelled)
                    if mode == .replace {
                        try deleteMissing(beyond: "t.id NOT IN (SELECT id FROM shelf_import_seen)", counts: &counts)
                    }
                }
                if let itemLimit, counts.itemsDeleted(from: table) > itemLimit {
                    throw ImportDeletionsGrew(items: counts.itemsDeleted(from: table), limit: itemLimit)
                }
                try execute("TRUNCATE shelf_import_seen")
                if isCancelled() { throw CancellationError() }
                try beforeEnd(self)
                if !commit {
                    try execute("ROLLBACK")
                    restore(moved)
                    return counts
                }
                guard willCommit() else { throw CancellationError() }
                committing = true
                try execute("COMMIT")
                return counts
            } catch {
                _ = try? rawQuery("ROLLBACK")
                _ = try? rawQuery("TRUNCATE shelf_import_seen")
                restore(moved)
                throw error
            }
        }

        /// Where `advanceSequence` found the table's ID sequence, and where it put it.
        struct MovedSequence {
            /// The last value before (nil: none handed out yet).
            let old: Int64?
            let top: Int64
            /// How many IDs this import may take from the sequence itself: two per staged row
            /// without an ID (the set-based statements, then the row-by-row path).
            let headroom: Int64
        }

        /// Moves the table's ID sequence past every ID the table or the input holds, so IDs the
        /// store picks never collide with IDs the input brings. Never moves it back (another
        /// client may be using the IDs above). Returns where it was, when it moved it, for
        /// `restore` after a rollback (sequences are not transactional).
        private func advanceSequence() throws -> MovedSequence? {
            let name = table.rawValue
            let rows = try query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT pg_sequence_last_value(s.sequence), s.top,
                            CASE WHEN s.top > coalesce(pg_sequence_last_value(s.sequence), 0)
                                THEN setval(s.sequence, s.top) END,
                            (SELECT count(*) FROM shelf_stage WHERE id IS NULL)
                        FROM (SELECT pg_get_serial_sequence('\(name)', 'id')::regclass AS sequence,
                            greatest((SELECT max(id) FROM \(name)), (SELECT max(id) FROM shelf_stage)) AS top) AS s
                        """))
            guard let row = rows.first else { return nil }
            let (old, top, set, unnumbered) = try row.decode((Int64?, Int64?, Int64?, Int64).self)
            guard let top, set != nil else { return nil }
            return MovedSequence(old: old, top: top, headroom: 2 * unnumbered)
        }

        /// Puts the ID sequence back after a rollback, so a failed or dry-run import leaves the
        /// next ID as it was: to where `advanceSequence` found it, or past the largest ID the
        /// table holds now (others may have committed rows meanwhile), whichever is larger.
        /// Only while the sequence stands no further than this import could have moved it;
        /// otherwise others have taken IDs above, and a gap in the IDs is all that is left.
        /// Best effort: on a lost connection the sequence stays moved (a gap, nothing more).
        /// Another client's uncommitted row with an ID taken in between is the one case this
        /// cannot see (its ID would come round again only after the gap is used up).
        private func restore(_ moved: MovedSequence?) {
            guard let moved else { return }
            let name = table.rawValue
            let old = moved.old.map(String.init) ?? "NULL"
            _ = try? rawQuery(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT CASE WHEN pg_sequence_last_value(s.sequence) <= \(moved.top) + \(moved.headroom) THEN
                            CASE WHEN s.floor IS NULL
                                THEN setval(s.sequence, (SELECT seqstart FROM pg_sequence WHERE seqrelid = s.sequence),
                                    false)
                                ELSE setval(s.sequence, s.floor) END END
                        FROM (SELECT pg_get_serial_sequence('\(name)', 'id')::regclass AS sequence,
                            greatest(\(old)::bigint, (SELECT max(id) FROM \(name))) AS floor) AS s
                        """))
        }

        /// Writes every staged row with a few set-based statements; false (and nothing
        /// written) when a row needs the row-by-row path: the store refuses one, the input
        /// names one row twice (the second then updates the first, in input order), or a
        /// user's ID and email disagree, or a user has no email key (`EmailCollision`: the
        /// row-by-row path finds users as the repository does). The row-by-row path then finds
        /// and names the row. Emails match by `Email.key`, staged beside each email.
        private func applyAll(mode: ImportMode, counts: inout ImportCounts) throws -> Bool {
            let now = Date().postgresMilliseconds
            let name = table.rawValue
            if try scalar("SELECT 1 FROM shelf_stage WHERE refusal IS NOT NULL LIMIT 1") != nil { return false }
            if try scalar("SELECT 1 FROM users WHERE email_key IS NULL LIMIT 1") != nil { return false }
            let existingAtMost = try scalar(PostgresQuery(unsafeSQL: "SELECT coalesce(max(id), 0) FROM \(name)")) ?? 0
            if mode != .insert {
                let ambiguous =
                    switch table {
                    case .users:
                        """
                        SELECT 1 WHERE EXISTS (SELECT 1 FROM shelf_stage GROUP BY email_key HAVING count(*) > 1)
                            OR EXISTS (SELECT 1 FROM shelf_stage s JOIN users u ON u.email_key = s.email_key
                                WHERE s.id IS NOT NULL AND s.id <> u.id)
                        """
                    case .items:
                        "SELECT 1 FROM shelf_stage WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1 LIMIT 1"
                    }
                if try scalar(PostgresQuery(unsafeSQL: ambiguous)) != nil { return false }
            }
            let sequence = "nextval(pg_get_serial_sequence('\(name)', 'id'))"
            let owner = """
                coalesce(owner_id, (SELECT u.id FROM users u WHERE u.email_key = owner_key))
                """
            // After the users' update: a changed email dropped its key (the schema's trigger, for
            // writers that do not know it); the user is the same, so is the key.
            let restoreKeys = """
                WITH restored AS (UPDATE users AS u SET email_key = s.email_key FROM shelf_stage AS s
                    WHERE u.email_key IS NULL AND u.email = s.email COLLATE "C" RETURNING 1)
                SELECT count(*) FROM restored
                """
            let (match, update, insert) =
                switch table {
                case .users:
                    (
                        "SELECT count(*) FROM shelf_stage s JOIN users u ON u.email_key = s.email_key",
                        """
                        UPDATE users AS u SET name = s.name, email = s.email,
                            created_at = coalesce(s.created_at, u.created_at)
                        FROM shelf_stage AS s
                        WHERE u.email_key = s.email_key AND NOT (u.name = s.name AND u.email = s.email
                            AND u.created_at = coalesce(s.created_at, u.created_at))
                        RETURNING 1
                        """,
                        """
                        INSERT INTO users (id, name, email, email_key, created_at)
                        SELECT coalesce(id, \(sequence)), name, email, email_key, coalesce(created_at, \(now))
                        FROM (SELECT * FROM shelf_stage s
                            WHERE \(mode == .insert ? "true" : "NOT EXISTS (SELECT 1 FROM users u WHERE u.email_key = s.email_key)")
                            ORDER BY seq OFFSET 0) AS s
                        RETURNING 1
                        """
                    )
                case .items:
                    (
                        "SELECT count(*) FROM shelf_stage s JOIN items i ON i.id = s.id",
                        """
                        UPDATE items AS i SET user_id = s.owner, title = s.title, notes = s.notes, status = s.status,
                            priority = s.priority, created_at = coalesce(s.created_at, i.created_at),
                            updated_at = coalesce(s.updated_at, greatest(\(now), i.updated_at)), version = i.version + 1
                        FROM (SELECT id, \(owner) AS owner, title, notes, status, priority, created_at, updated_at
                            FROM shelf_stage WHERE id IS NOT NULL) AS s
                        WHERE i.id = s.id AND NOT (i.user_id IS NOT DISTINCT FROM s.owner AND i.title = s.title
                            AND i.notes IS NOT DISTINCT FROM s.notes AND i.status = s.status AND i.priority = s.priority
                            AND i.created_at = coalesce(s.created_at, i.created_at)
                            AND i.updated_at = coalesce(s.updated_at, i.updated_at))
                        RETURNING 1
                        """,
                        """
                        INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                        SELECT coalesce(id, \(sequence)), \(owner), title, notes, status, priority,
                            coalesce(created_at, \(now)), coalesce(updated_at, created_at, \(now)), 1
                        FROM (SELECT * FROM shelf_stage s
                            WHERE \(mode == .insert ? "true" : "s.id IS NULL OR NOT EXISTS (SELECT 1 FROM items i WHERE i.id = s.id)")
                            ORDER BY seq OFFSET 0) AS s
                        RETURNING 1
                        """
                    )
                }
            func count(_ sql: String) throws -> Int {
                Int(try scalarRaw("WITH changed AS (\(sql)) SELECT count(*) FROM changed"))
            }
            try execute("SAVEPOINT shelf_bulk")
            do {
                var result = ImportCounts()
                if mode != .insert {
                    let matched = Int(try scalarRaw(match))
                    result.updated = try count(update)
                    result.unchanged = matched - result.updated
                    if table == .users { _ = try scalarRaw(restoreKeys) }
                }
                result.inserted = try count(insert)
                if mode == .replace {
                    try deleteMissing(beyond: "t.id <= \(existingAtMost)", counts: &result, raw: true)
                }
                try execute("RELEASE SAVEPOINT shelf_bulk")
                counts = result
                return true
            } catch  where Self.isRowRefusal(error) {
                try execute("ROLLBACK TO SAVEPOINT shelf_bulk")
                return false
            } catch {
                throw StoreError(postgres: error, at: place)
            }
        }

        /// The first column of the first row of `sql` (0 when none), with server errors as
        /// they are.
        private func scalarRaw(_ sql: String) throws -> Int64 {
            try rawQuery(PostgresQuery(unsafeSQL: sql)).first?.decode(Int64?.self) ?? 0
        }

        /// True for the errors a row's values cause (a constraint, bad text), which the
        /// row-by-row path turns into a reject; false for the others (a lost connection).
        static func isRowRefusal(_ error: any Error) -> Bool {
            guard let state = StoreError.sqlState(of: error) else { return false }
            return state.hasPrefix("23") || state.hasPrefix("22")
        }

        // MARK: Row by row

        private func applyRows(
            mode: ImportMode, continues: Bool, counts: inout ImportCounts, _ isCancelled: () -> Bool
        ) throws {
            let columns =
                switch table {
                case .users: "seq, id, name, email, created_at, refusal"
                case .items:
                    "seq, id, owner_id, owner_email, title, notes, status, priority, created_at, updated_at, refusal"
                }
            let writer = PostgresImportWriter(session: self, mode: mode)
            var after: Int64 = 0
            while true {
                let rows = try query(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(columns) FROM shelf_stage WHERE seq > \(after) ORDER BY seq LIMIT 1000"))
                if rows.isEmpty { return }
                if isCancelled() { throw CancellationError() }
                for row in rows {
                    let seq = try row.decode(Int64.self)
                    after = seq
                    do {
                        let outcome: ImportRowOutcome
                        switch table {
                        case .users:
                            let (_, id, name, email, created, refusal) = try row.decode(
                                (Int64, Int64?, String, String, Int64?, String?).self)
                            try Self.refuse(refusal)
                            outcome = try writer.write(
                                ImportedUser(id: id, name: name, email: email, createdAt: created))
                        case .items:
                            let (
                                _, id, ownerID, ownerEmail, title, notes, status, priority, created, updated, refusal
                            ) =
                                try row.decode(
                                    (
                                        Int64, Int64?, Int64?, String?, String, String?, String, Int64, Int64?, Int64?,
                                        String?
                                    )
                                    .self)
                            try Self.refuse(refusal)
                            let owner: ImportedOwner = if let ownerID { .id(ownerID) } else { .email(ownerEmail ?? "") }
                            outcome = try writer.write(
                                ImportedItem(
                                    id: id, owner: owner, title: title, notes: notes,
                                    status: Item.Status(rawValue: status) ?? .open, priority: Int(priority),
                                    createdAt: created, updatedAt: updated))
                        }
                        counts.add(outcome)
                    } catch let error as ImportRowError {
                        guard continues else { throw ImportRowFailure(seq: seq, error: error) }
                        counts.refused += 1
                        _ = try query(
                            """
                            INSERT INTO shelf_stage_rejects (seq, placed, field, reason, record)
                            SELECT seq, false, \(error.field), \(StageText.withoutNUL(error.message)), record
                            FROM shelf_stage WHERE seq = \(seq)
                            """)
                    }
                }
            }
        }

        private static func refuse(_ refusal: String?) throws {
            guard let refusal else { return }
            throw ImportRowError(
                field: refusal,
                message: "PostgreSQL text cannot hold the NUL character (U+0000); remove it from the \(refusal)")
        }
    }

#endif
