#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Every keyset page is one range scan of an index that gives its order: no sort, no
    /// scan of the rows before the cursor. With sequential scans and sorts priced out, the
    /// planner shows which index it can use; a page whose order no index gives would still
    /// show a Sort.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresQueryPlanTests {
        /// Hostile round 12: on a database of 77 users, pages by owner with status and priority
        /// filtered came out of order, repeating and skipping rows: the planner read the users
        /// by a scan and sorted the rows by name and owner ID alone, which scrambled each
        /// owner's items. With index scans priced out the same plan shows here; each owner's
        /// items must still come in ID order, both ways.
        @Test func theOwnerOrderKeepsEachOwnersItemsInIDOrderWhateverThePlan() async throws {
            try await Scratch.withBackend { store, url in
                var ids: [String: User.ID] = [:]
                for name in ["Bo", "Al", "Cy"] {
                    ids[name] = try await store.users.insert(
                        NewUser(name: name, email: "\(name.lowercased())@example.com"))
                }
                let owners = ["Bo", "Al", "Cy"].compactMap { ids[$0] }
                _ = try await store.items.insert(
                    contentsOf: (0..<900).map {
                        NewItem(userID: owners[$0 % 3], title: "t\($0)", status: .done, priority: 3)
                    })
                let place = try PostgresLocation(url: url)
                try await PostgresBackend.withConnection(to: place) { connection in
                    let logger = Logger(label: "test")
                    _ = try await connection.query("SET enable_indexscan = off", logger: logger)
                    _ = try await connection.query("SET enable_indexonlyscan = off", logger: logger)
                    _ = try await connection.query("SET enable_bitmapscan = off", logger: logger)
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        var query = ItemQuery(text: "status:done prio:3")
                        query.sortField = .owner
                        query.sortDirection = direction
                        let page = try query.postgresPage(cursor: nil, backward: false, limit: 1000)
                        let rows = try await connection.query(page, logger: logger)
                        var pairs: [(owner: Int64, id: Int64)] = []
                        for try await row in rows {
                            let cells = row.makeRandomAccess()
                            pairs.append((try cells[1].decode(Int64.self), try cells[0].decode(Int64.self)))
                        }
                        #expect(pairs.count == 900)
                        // Al, Bo, Cy (or back), each owner's items by ID in the same direction.
                        let byName = [owners[1], owners[0], owners[2]].map(\.rawValue)
                        let expected = direction == .ascending ? byName : byName.reversed()
                        let want = expected.flatMap { owner in
                            pairs.filter { $0.owner == owner }.map(\.id)
                                .sorted { direction == .ascending ? $0 < $1 : $0 > $1 }
                        }
                        #expect(pairs.map(\.id) == want, "\(direction): out of order")
                    }
                }
            }
        }

        /// The owner order's items whose owner is gone come after every owner, from a second arm
        /// of a `UNION ALL` that the LIMIT stops before it starts when the owners fill the page:
        /// the owners' plan is as without it (users_by_name, items_by_user, no sort), and the
        /// ownerless part, never executed there, runs on the last page only.
        @Test func theOwnerlessPartRunsOnlyOnAPageTheOwnersDoNotFill() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                _ = try await store.items.insert(
                    contentsOf: (0..<40).map { NewItem(userID: $0 % 2 == 0 ? ann : bob, title: "t\($0)") })
                let place = try PostgresLocation(url: url)
                try await PostgresBackend.withConnection(to: place) { connection in
                    let logger = Logger(label: "test")
                    _ = try await connection.query("SET session_replication_role = replica", logger: logger)
                    _ = try await connection.query(
                        PostgresQuery(unsafeSQL: "DELETE FROM users WHERE id = \(bob.rawValue)"), logger: logger)
                    _ = try await connection.query("SET session_replication_role = DEFAULT", logger: logger)
                    func plan(_ page: PostgresQuery) async throws -> String {
                        let rows = try await connection.query(
                            PostgresQuery(
                                unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + page.sql,
                                binds: page.binds),
                            logger: logger)
                        var lines: [String] = []
                        for try await line in rows.decode(String.self) { lines.append(line) }
                        return lines.joined(separator: "\n")
                    }
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        let query = ItemQuery(sortField: .owner, sortDirection: direction)
                        // Ann's 20 items fill a first page of 10: the second arm never starts.
                        let first = try await plan(try query.postgresPage(cursor: nil, backward: false, limit: 10))
                        let owners = try await plan(
                            try query.postgresPage(cursor: nil, backward: false, limit: 10, ownerless: false))
                        #expect(first.contains("users_by_name") && first.contains("items_by_user"), "\(first)")
                        let (head, tail) = try #require(Self.split(first), "\(first)")
                        // The owners' part is the owners' plan alone (each node, numbers aside).
                        func nodes(_ plan: String) -> Set<String> {
                            Set(
                                plan.split(separator: "\n").map {
                                    String($0.filter { !$0.isNumber }).trimmingCharacters(in: .whitespaces)
                                        .replacingOccurrences(of: "->  ", with: "")
                                })
                        }
                        #expect(!head.contains("never executed"), "\(first)")
                        #expect(nodes(owners).isSubset(of: nodes(head)), "\(owners)\n\(first)")
                        #expect(tail.contains("never executed") && !tail.contains("actual rows=1 "), "\(first)")
                        #expect(!owners.contains("Append"), "\(owners)")
                        // A page of 30 reaches Bob's 20 items, read by the second arm.
                        let last = try await plan(try query.postgresPage(cursor: nil, backward: false, limit: 30))
                        let (_, reached) = try #require(Self.split(last), "\(last)")
                        #expect(reached.contains("Recursive Union") && !reached.contains("never executed"), "\(last)")
                        #expect(reached.contains("items_by_user"), "\(last)")
                    }
                }
            }
        }

        /// The plan of a page's first and second `UNION ALL` arms (the lines from the second
        /// child of the top Append on), or nil when there is no Append.
        private static func split(_ plan: String) -> (String, String)? {
            let lines = plan.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let append = lines.firstIndex(where: { $0.contains("Append") }) else { return nil }
            let indent =
                (lines[append].firstIndex(of: "-").map {
                    lines[append].distance(from: lines[append].startIndex, to: $0)
                } ?? 0) + 6
            let children = lines.indices.filter { index in
                index > append && lines[index].count > indent
                    && lines[index].prefix(indent).allSatisfy { $0 == " " }
                    && lines[index].dropFirst(indent).hasPrefix("->")
            }
            guard children.count >= 2 else { return nil }
            return (
                lines[..<children[1]].joined(separator: "\n"), lines[children[1]...].joined(separator: "\n")
            )
        }

        @Test func everyPageIsAnIndexRangeScanWithoutASort() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let id = try await store.items.insert(NewItem(userID: ann, title: "Dune"))
                let item = try #require(try await store.items.item(id: id))
                let place = try PostgresLocation(url: url)
                try await PostgresBackend.withConnection(to: place) { connection in
                    let logger = Logger(label: "test")
                    _ = try await connection.query("SET enable_seqscan = off", logger: logger)
                    _ = try await connection.query("SET enable_sort = off", logger: logger)
                    _ = try await connection.query("SET enable_bitmapscan = off", logger: logger)
                    for field in ItemQuery.SortField.allCases {
                        for direction in [ItemQuery.SortDirection.ascending, .descending] {
                            for owner in [nil, ann] {
                                for backward in [false, true] {
                                    let query = ItemQuery(
                                        owner: owner, status: .open, sortField: field, sortDirection: direction)
                                    // The owners' part (the ownerless items' part has a test of
                                    // its own: `theOwnerlessPartRunsOnlyOnAPageTheOwnersDoNotFill`).
                                    let page = try query.postgresPage(
                                        cursor: ItemCursor(item), backward: backward, limit: 50, ownerless: false)
                                    let rows = try await connection.query(
                                        PostgresQuery(unsafeSQL: "EXPLAIN " + page.sql, binds: page.binds),
                                        logger: logger)
                                    var plan: [String] = []
                                    for try await line in rows.decode(String.self) { plan.append(line) }
                                    let text = plan.joined(separator: "\n")
                                    // The owner order walks users_by_name, then items_by_user. A
                                    // status filter without an owner reads one range per priority
                                    // of the (status, priority, order) indexes (migration 0009) and
                                    // merges them; in priority order the ranges are read in turn,
                                    // each at most `limit` rows, and the few rows are put in order
                                    // (a Sort over an Append of Limits: bounded, never the table).
                                    let indexes: [String]
                                    switch (field, owner) {
                                    case (.owner, _): indexes = ["items_by_user"]
                                    case (.priority, nil): indexes = ["items_by_status_priority"]
                                    case (_, nil): indexes = ["items_by_status_priority_\(Self.name(field))"]
                                    // With one row in the table either index gives the order.
                                    case (.priority, _):
                                        indexes = ["items_by_user_priority", "items_by_status_priority"]
                                    case (_, _): indexes = ["items_by_user_\(Self.name(field))"]
                                    }
                                    #expect(text.contains("Index Scan"), "\(text)")
                                    #expect(
                                        indexes.contains { text.contains(" \($0) ") }, "expected \(indexes):\n\(text)")
                                    if field == .priority, owner == nil {
                                        #expect(!text.contains("Sort") || text.contains("->  Append"), "\(text)")
                                    } else {
                                        #expect(!text.contains("->  Sort") && !text.hasPrefix("Sort"), "\(text)")
                                    }
                                    // The cursor is an index condition, not a filter on rows read.
                                    #expect(text.contains("Index Cond: (") && text.contains("ROW("), "\(text)")
                                }
                            }
                        }
                    }
                }
            }
        }

        /// A run of 3 letters without spaces is a lookup in the pg_trgm indexes of title and
        /// notes (Migrations/postgres/0005; the test server has pg_trgm), not a read of every
        /// row (at 20,000 items; a much smaller table is cheaper to read whole).
        @Test func aSubstringIsALookupInTheTrigramIndexes() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                var items = (0..<20_000).map { NewItem(userID: ann, title: "item \($0)", notes: "notes \($0)") }
                items.append(NewItem(userID: ann, title: "日本語のドキュメント"))
                _ = try await store.items.insert(contentsOf: items)
                let place = try PostgresLocation(url: url)
                try await PostgresBackend.withConnection(to: place) { connection in
                    let logger = Logger(label: "test")
                    _ = try await connection.query("ANALYZE items", logger: logger)
                    let query = ItemQuery(text: "ドキュメント")
                    let page = try query.postgresPage(cursor: nil, backward: false, limit: nil)
                    let rows = try await connection.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN " + page.sql, binds: page.binds), logger: logger)
                    var plan: [String] = []
                    for try await line in rows.decode(String.self) { plan.append(line) }
                    let text = plan.joined(separator: "\n")
                    #expect(text.contains("items_title_trigram") && text.contains("items_notes_trigram"), "\(text)")
                    #expect(!text.contains("Seq Scan"), "\(text)")
                }
            }
        }

        private static func name(_ field: ItemQuery.SortField) -> String {
            switch field {
            case .created: "created"
            case .updated: "updated"
            case .priority: "priority"
            case .title: "title"
            case .owner: "user"
            }
        }
    }
#endif
