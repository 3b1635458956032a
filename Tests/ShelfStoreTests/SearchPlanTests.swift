import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Which plan a search page takes on SQLite, and that every plan is the index walk it claims:
/// the owner order and the walks never sort; all plans give the same rows.
@Suite("Search plans on SQLite")
struct SearchPlanTests {
    /// 3,000 items: "the" in every title, "thermos" in a third, "rare" in one; three owners
    /// whose names sort against their IDs.
    static func makeStore() async throws -> (SQLiteBackend, [User.ID]) {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        var owners: [User.ID] = []
        for (name, email) in [("zoe", "zoe@example.com"), ("Ann", "ann@example.com"), ("bob", "bob@example.com")] {
            owners.append(try await store.users.insert(NewUser(name: name, email: email)))
        }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let items = (0..<3000).map { index in
            NewItem(
                userID: owners[index % 3],
                title: "the \(index % 3 == 0 ? "thermos" : "lamp") \(index == 1234 ? "rare" : "") \(index)",
                status: index % 2 == 0 ? .open : .done, priority: index % 4,
                createdAt: base.addingTimeInterval(Double(index % 700)))
        }
        _ = try await store.items.insert(contentsOf: items)
        return (sqlite, owners)
    }

    /// The query plan of the SQL `make` builds (inside the read: the SQL is not Sendable).
    static func plan(_ sqlite: SQLiteBackend, _ make: @escaping @Sendable () -> BoundSQL) async throws -> String {
        try await sqlite.database.read {
            let sql = make()
            return try $0.fetch("EXPLAIN QUERY PLAN " + sql.text, arguments: sql.arguments) {
                try $0.get(3, as: String.self)
            }
        }.joined(separator: "\n")
    }

    @Test func thePlanFollowsHowCommonTheWordsAre() async throws {
        let (sqlite, _) = try await Self.makeStore()
        func plan(_ text: String, limit: Int? = 50) async throws -> ItemQuery.MatchPlan {
            try await sqlite.database.read {
                try SQLiteItemRepository.matchPlan(ItemQuery(text: text), limit: limit, $0)
            }
        }
        // Every item: walk; "the" is held by the prefix index, so each row is asked directly.
        #expect(try await plan("the") == .walk)
        #expect(try await plan("th") == .walk)
        // A thousand of 3,000, but a prefix of 7 letters: walk over the matches found once.
        #expect(try await plan("thermos") == .walkOverMatches)
        #expect(try await plan(#""the lamp""#) == .walkOverMatches)
        // One match: find it first.
        #expect(try await plan("rare") == .matchFirst)
        #expect(try await plan("the rare") == .matchFirst)
        // Reading everything: order the matches.
        #expect(try await plan("the", limit: nil) == .matchFirst)
        // Without words there is nothing to choose.
        #expect(try await plan("is:open prio:2") == .walk)
    }

    /// A page filtered by status or priority (no owner, no words) merges one range per
    /// (status, priority) pair of the indexes of Migrations/0012, each already in order: no
    /// sort step and no walk past rows that do not match (before, `prio:3` read every item of
    /// priority 3 through items_by_priority and sorted them).
    @Test func statusAndPriorityPagesMergeRangesInOrder() async throws {
        let (sqlite, _) = try await Self.makeStore()
        for text in ["prio:3", "prio:>=2", "status:done", "is:open prio:1", "status:done prio:3 -lamp"] {
            for field in ItemQuery.SortField.allCases where field != .owner {
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    let query = ItemQuery(text: text, sortField: field, sortDirection: direction)
                    let plan = try await Self.plan(sqlite) { query.pageSQL(cursor: nil, backward: false, limit: 50) }
                    // The only sort steps are those of the arms of priorities between two whole
                    // numbers (2.5, written by another program), one seek each that finds nothing
                    // in a store of whole numbers: an empty sort.
                    let lines = plan.split(separator: "\n")
                    let sorts = lines.indices.filter { lines[$0].contains("TEMP B-TREE") }
                    let arms = sorts.map { sort in lines[..<sort].last { $0.contains("SEARCH i ") } ?? "" }
                    #expect(
                        arms.allSatisfy { $0.contains("priority>? AND priority<?") },
                        "\(text) \(field) \(direction):\n\(plan)")
                    #expect(plan.contains("items_by_status_priority"), "\(text) \(field) \(direction):\n\(plan)")
                }
            }
        }
    }

    /// The arms' sort steps (each line naming `TEMP B-TREE`) other than those of the arms of
    /// priorities between whole numbers (`priority>? AND priority<?`, an empty sort): none
    /// means every range is read in the order of its index.
    static func sortsOutsideBetweenArms(_ plan: String) -> [Substring] {
        let lines = plan.split(separator: "\n")
        return lines.indices.filter { lines[$0].contains("TEMP B-TREE") }.map { sort in
            lines[..<sort].last { $0.contains("SEARCH i ") || $0.contains("SCAN i ") } ?? lines[sort]
        }.filter { !$0.contains("priority>? AND priority<?") }
    }

    /// A range of times on another column than the sort's: a wide one is walked past along the
    /// sort order's index (the unary + of `walkPastTimes`), a narrow one is read first and
    /// sorted, as `SQLiteItemRepository.walksPastTimes` decides by a probe; both plans give the
    /// same rows. Left to itself, the planner read a wide range and sorted it in the arms of a
    /// merged page (`status:open created:>2021-03-01` by title read 384,120 items at 1,000,000).
    @Test func aWideRangeOfTimesIsWalkedPastAndANarrowOneReadFirst() async throws {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        // One item an hour over 125 days from 2023-11-14 22:13 UTC: a day holds 24, fewer than
        // the probe's sqrt(50 × 3,000 / 4) = 193; from 2023-11-20 on, about 2,850.
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await store.items.insert(
            contentsOf: (0..<3000).map { index in
                NewItem(
                    userID: ann, title: "item \((index * 7919) % 3000)", status: index % 2 == 0 ? .open : .done,
                    priority: index % 4, createdAt: base.addingTimeInterval(Double(index) * 3600))
            })
        for (text, wide) in [
            ("created:>2023-11-20", true), ("is:open created:>2023-11-20", true), ("created:2023-12-01", false),
            ("is:open prio:>=2 created:2023-12-01", false),
        ] {
            for field in [ItemQuery.SortField.updated, .priority, .title] {
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    let query = ItemQuery(text: text, sortField: field, sortDirection: direction)
                    let label = "\(text) \(field) \(direction)"
                    let walks = try await sqlite.database.read { connection in
                        try SQLiteItemRepository.walksPastTimes(
                            query, limit: 50, now: Date(), connection, parsed: ItemQueryText(query.text))
                    }
                    #expect(walks == wide, "\(label)")
                    let plan = try await Self.plan(sqlite) {
                        query.pageSQL(cursor: nil, backward: false, limit: 50, walkPastTimes: true)
                    }
                    // Walked: no range of created_at read, no sort but the between arms' ones.
                    #expect(!plan.contains("created_at>") && !plan.contains("created_at<"), "\(label):\n\(plan)")
                    #expect(Self.sortsOutsideBetweenArms(plan).isEmpty, "\(label):\n\(plan)")
                    var pages: [[Item.ID]] = []
                    for walk in [false, true] {
                        pages.append(
                            try await sqlite.database.read {
                                let sql = query.pageSQL(cursor: nil, backward: false, limit: 50, walkPastTimes: walk)
                                return try $0.fetch(sql.text, arguments: sql.arguments, row: Item.init(row:)).map(\.id)
                            })
                    }
                    #expect(pages[0] == pages[1], "\(label)")
                    #expect(!pages[0].isEmpty, "\(label)")
                    #expect(pages[0] == (try await store.items.items(matching: query, limit: 50)).map(\.id), "\(label)")
                }
            }
        }
    }

    /// The owner order filtered by status, priority or a time, without words, reads each
    /// owner's matches through an owner index that answers the tests (items_by_user_status_priority
    /// of Migrations/0019, or the owner's priority and time indexes) and sorts their IDs alone.
    /// Before, the planner walked each owner's items by ID through items_by_user reading every
    /// row (`status:done`), or read items_by_status_priority_created once per owner (`is:open
    /// prio:1`: 7 to 9 s at 1,000,000 items with a day's range). Rows as the reference order.
    @Test func theFilteredOwnerOrderReadsEachOwnersMatchesByAnIndex() async throws {
        let (sqlite, _) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let users = try await store.users.users()
        let names = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0.name.lowercased()) })
        for text in [
            "status:done", "is:open prio:2", "prio:>=2", "created:<2023-11-15", "status:done created:<2023-11-15",
        ] {
            for direction in [ItemQuery.SortDirection.ascending, .descending] {
                let query = ItemQuery(text: text, sortField: .owner, sortDirection: direction)
                let label = "\(text) \(direction)"
                // The owners' part (the ownerless items' part, which reads items_by_user, has a
                // test of its own below).
                let plan = try await Self.plan(sqlite) {
                    query.pageSQL(cursor: nil, backward: false, limit: 50, ownerless: false)
                }
                #expect(plan.contains("COVERING INDEX items_by_user_"), "\(label):\n\(plan)")
                #expect(
                    !plan.contains("items_by_user (") && !plan.contains("items_by_status_priority"),
                    "\(label):\n\(plan)")
                let matching = try await store.items.items(matching: ItemQuery(text: text))
                let ascending = matching.sorted { a, b in
                    let (x, y) = (names[a.userID] ?? "", names[b.userID] ?? "")
                    return x != y ? x < y : (a.userID, a.id) < (b.userID, b.id)
                }
                let want = (direction == .ascending ? ascending : ascending.reversed()).map(\.id)
                #expect(!want.isEmpty, "\(label)")
                var read: [Item.ID] = []
                var cursor: ItemCursor?
                while true {
                    let page = try await store.items.items(matching: query, after: cursor, limit: 400)
                    read += page.map(\.id)
                    guard let last = page.last, page.count == 400 else { break }
                    cursor = ItemCursor(last)
                }
                #expect(read == want, "\(label)")
            }
        }
    }

    @Test func everyPlanGivesTheSameRows() async throws {
        let (sqlite, owners) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let all = try await store.items.items(matching: ItemQuery())
        let cursor = ItemCursor(all[700])
        for text in ["the", "thermos", "the -lamp", #""the thermos""#, "rare", "th prio:>1 @bo"] {
            for field in ItemQuery.SortField.allCases where field != .owner {
                for owner in [nil, owners[1]] {
                    let query = ItemQuery(owner: owner, text: text, sortField: field, sortDirection: .descending)
                    var pages: [[Item.ID]] = []
                    for plan in [ItemQuery.MatchPlan.walk, .walkOverMatches, .matchFirst] {
                        pages.append(
                            try await sqlite.database.read {
                                let sql = query.pageSQL(cursor: cursor, backward: false, limit: 40, plan: plan)
                                return try $0.fetch(sql.text, arguments: sql.arguments, row: Item.init(row:)).map(\.id)
                            })
                    }
                    #expect(pages[0] == pages[1] && pages[1] == pages[2], "\(text) \(field)")
                    #expect(
                        pages[0] == (try await store.items.items(matching: query, after: cursor, limit: 40)).map(\.id))
                }
            }
        }
    }

    @Test func walksFollowTheSortIndexWithoutSorting() async throws {
        let (sqlite, owners) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let cursor = ItemCursor(try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first))
        for field in ItemQuery.SortField.allCases where field != .owner {
            for owner in [nil, owners[0]] {
                for plan in [ItemQuery.MatchPlan.walk, .walkOverMatches] {
                    let query = ItemQuery(owner: owner, text: "the", sortField: field, sortDirection: .ascending)
                    let text = try await Self.plan(sqlite) {
                        query.pageSQL(cursor: cursor, backward: true, limit: 50, plan: plan)
                    }
                    #expect(!text.contains("TEMP B-TREE"), "\(field) \(plan): \(text)")
                    #expect(text.contains("USING") && text.contains("INDEX items_by_"), "\(field) \(plan): \(text)")
                    if plan == .walk {
                        // The full-text index is asked about one rowid at a time.
                        #expect(text.contains("VIRTUAL TABLE INDEX 0:=M"), "\(text)")
                    }
                }
            }
        }
    }

    /// A run of 3 letters or more without spaces (or of emoji) is looked up in the trigram
    /// index once, and each row of the sort index's walk tested against those matches.
    @Test func substringsUseTheTrigramIndexAndWalkTheSortIndex() async throws {
        let (sqlite, _) = try await Self.makeStore()
        for text in ["ドキュメント", "the ドキュメント", "🎂🎉🎂", "-ドキュメント"] {
            for field in ItemQuery.SortField.allCases where field != .owner {
                let query = ItemQuery(text: text, sortField: field, sortDirection: .descending)
                let plan = try await Self.plan(sqlite) { query.pageSQL(cursor: nil, backward: false, limit: 50) }
                #expect(plan.contains("SCAN items_trigram VIRTUAL TABLE INDEX"), "\(text) \(field): \(plan)")
                #expect(!plan.contains("TEMP B-TREE"), "\(text) \(field): \(plan)")
                #expect(plan.contains("INDEX items_by_"), "\(text) \(field): \(plan)")
            }
            let count = try await Self.plan(sqlite) { ItemQuery(text: text).countSQL() }
            #expect(count.contains("SCAN items_trigram VIRTUAL TABLE INDEX"), "\(text): \(count)")
        }
    }

    @Test func ownerTermsAreTestedAsTheSortIndexIsWalked() async throws {
        let (sqlite, _) = try await Self.makeStore()
        for text in ["@bo", "@bo @zo", "the @bo", "thermos owner:ann"] {
            for field in ItemQuery.SortField.allCases where field != .owner {
                let query = ItemQuery(text: text, sortField: field, sortDirection: .descending)
                let plan = try await Self.plan(sqlite) { query.pageSQL(cursor: nil, backward: false, limit: 50) }
                #expect(!plan.contains("TEMP B-TREE"), "\(text) \(field): \(plan)")
                #expect(plan.contains("INDEX items_by_"), "\(text) \(field): \(plan)")
            }
        }
    }

    @Test func theOwnerOrderIsANestedWalkOfTwoIndexes() async throws {
        let (sqlite, owners) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let item = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first)
        for cursor in [nil, ItemCursor(item), ItemCursor(item, ownerName: "Ann")] {
            for direction in [ItemQuery.SortDirection.ascending, .descending] {
                for backward in [false, true] {
                    for (owner, text) in [(nil, ""), (owners[2], ""), (nil, "the is:open"), (nil, "@a")] {
                        let query = ItemQuery(owner: owner, text: text, sortField: .owner, sortDirection: direction)
                        let plan = try await Self.plan(sqlite) {
                            query.pageSQL(cursor: cursor, backward: backward, limit: 50, ownerless: false)
                        }
                        let label = "\(direction) backward \(backward) '\(text)' owner \(String(describing: owner))"
                        #expect(!plan.contains("TEMP B-TREE"), "\(label): \(plan)")
                        #expect(plan.contains("users_by_name") || owner != nil, "\(label): \(plan)")
                        #expect(plan.contains("items_by_user "), "\(label): \(plan)")
                        // The part of the items whose owner is gone (after every owner): one
                        // seek of items_by_user per owner ID, then each such owner's items through
                        // it; none with owner prefixes, nor backward from an owner's named item.
                        let full = try await Self.plan(sqlite) {
                            query.pageSQL(cursor: cursor, backward: backward, limit: 50)
                        }
                        if text == "@a" || (backward && cursor?.ownerName != nil) {
                            #expect(full == plan, "\(label): \(full)")
                        } else {
                            // The owners' part as without the other (numbered as it comes).
                            let unnumbered = { (plan: String) in String(plan.filter { !$0.isNumber }) }
                            #expect(
                                full.contains("UNION ALL") && unnumbered(full).contains(unnumbered(plan)),
                                "\(label): \(full)")
                            #expect(
                                full.contains(
                                    owner == nil ? "items_by_user (user_id>?)" : "users USING INTEGER PRIMARY KEY")
                                    && full.contains("items_by_user (user_id=?"), "\(label): \(full)")
                        }
                        if cursor != nil, owner == nil {
                            // The cursor bounds the walk of owners, and of the cursor owner's items.
                            #expect(plan.contains("(name>?)") || plan.contains("(name<?)"), "\(label): \(plan)")
                            #expect(plan.contains("rowid>?") || plan.contains("rowid<?"), "\(label): \(plan)")
                        }
                    }
                }
            }
        }
    }
}
