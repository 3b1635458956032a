import Foundation
import ShelfStore
import Testing

/// The query language and the owner ordering, on every backend, against the same items
/// filtered and sorted in Swift.
@Suite("Conformance: query language and owner order")
struct QueryLanguageConformanceTests {
    static let hour: TimeInterval = 3600

    /// Owners whose names sort differently from their IDs, with letter-case twins and a tie.
    static let people: [(name: String, email: String)] = [
        ("zed", "zed@example.com"), ("Ada Lovelace", "countess@example.com"), ("bob", "robert@ex.org"),
        ("Zed", "zed2@example.com"), ("adam", "adam@example.com"), ("Carl_1", "c%rl@example.com"),
    ]
    static let titles = [
        "red apple pie", "green pear", "blue moth trap", "Mothra returns", "apple tart", "the red door",
        "Émile's café", "meeting notes", "red door knob", "door red",
    ]

    struct Fixture {
        var items: [Item]
        var users: [User.ID: User]
        /// When the items were made; ages are at least an hour from every boundary.
        var now: Date
    }

    static func fill(_ store: Store) async throws -> Fixture {
        var users: [User.ID: User] = [:]
        var ids: [User.ID] = []
        for person in people {
            let id = try await store.users.insert(NewUser(name: person.name, email: person.email))
            ids.append(id)
        }
        for user in try await store.users.users() { users[user.id] = user }
        let now = Date()
        var new: [NewItem] = []
        for index in 0..<47 {
            new.append(
                NewItem(
                    userID: ids[(index * 5) % ids.count], title: titles[index % titles.count],
                    notes: index % 4 == 0 ? "notes about redwood \(index)" : (index % 7 == 0 ? "a red apple" : nil),
                    status: index % 3 == 0 ? .done : .open, priority: index % 4,
                    // 12 hours apart, an hour off every whole day.
                    createdAt: now.addingTimeInterval(-Double(index * 12 + 1) * hour)))
        }
        _ = try await store.items.insert(contentsOf: new)
        let items = try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
        return Fixture(items: items, users: users, now: now)
    }

    // MARK: The reference, in Swift

    static func tokens(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    static func hasWord(_ item: Item, _ prefix: String) -> Bool {
        let folded = tokens(prefix)[0]
        return tokens(item.title + " " + (item.notes ?? "")).contains { $0.hasPrefix(folded) }
    }

    static func hasPhrase(_ item: Item, _ phrase: String) -> Bool {
        let words = tokens(phrase)
        return [item.title, item.notes ?? ""].contains { field in
            let fieldWords = tokens(field)
            guard fieldWords.count >= words.count else { return false }
            return (0...(fieldWords.count - words.count)).contains {
                Array(fieldWords[$0..<($0 + words.count)]) == words
            }
        }
    }

    static func ownerStarts(_ item: Item, _ users: [User.ID: User], _ prefix: String) -> Bool {
        guard let user = users[item.userID] else { return false }
        return [user.name, user.email].contains { $0.lowercased().hasPrefix(prefix.lowercased()) }
    }

    static func age(_ item: Item, _ fixture: Fixture) -> TimeInterval {
        fixture.now.timeIntervalSince(item.createdAt)
    }

    /// Midnight UTC of the day `item` was created, as `YYYY-MM-DD`, and that midnight.
    static func day(of date: Date) -> (String, Date) {
        let seconds = (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        let midnight = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return (formatter.string(from: midnight), midnight)
    }

    /// Query texts and what they select, one per operator of the language.
    static func cases(_ fixture: Fixture) -> [(String, (Item) -> Bool)] {
        let users = fixture.users
        let (dayText, midnight) = day(of: fixture.items[20].createdAt)
        let nextMidnight = midnight.addingTimeInterval(86_400)
        return [
            ("red", { hasWord($0, "red") }),
            ("RED app", { hasWord($0, "red") && hasWord($0, "app") }),
            ("cafe", { hasWord($0, "cafe") }),
            (#""red door""#, { hasPhrase($0, "red door") }),
            (#""door red""#, { hasPhrase($0, "door red") }),
            (#""red""#, { hasPhrase($0, "red") }),
            ("red -door", { hasWord($0, "red") && !hasWord($0, "door") }),
            ("-red", { !hasWord($0, "red") }),
            (#"-"red door""#, { !hasPhrase($0, "red door") }),
            (#"door -"red door" -knob"#, { hasWord($0, "door") && !hasPhrase($0, "red door") && !hasWord($0, "knob") }),
            ("@ada", { ownerStarts($0, users, "ada") }),
            ("owner:ROB", { ownerStarts($0, users, "rob") }),
            (#"owner:"Ada L""#, { ownerStarts($0, users, "Ada L") }),
            ("@zed @bob", { ownerStarts($0, users, "zed") || ownerStarts($0, users, "bob") }),
            ("@c%", { ownerStarts($0, users, "c%") }),
            ("@carl_", { ownerStarts($0, users, "carl_") }),
            ("@c_rl", { _ in false }),
            ("@nobody", { _ in false }),
            ("status:done", { $0.status == .done }),
            ("is:open", { $0.status == .open }),
            ("is:open is:done", { _ in false }),
            ("prio:2", { $0.priority == 2 }),
            ("prio:>=2", { $0.priority >= 2 }),
            ("prio:>2", { $0.priority > 2 }),
            ("prio:<2", { $0.priority < 2 }),
            ("prio:<=1", { $0.priority <= 1 }),
            ("prio:>=1 prio:<3", { (1..<3).contains($0.priority) }),
            ("prio:<0", { _ in false }),
            ("created:<7d", { age($0, fixture) < 7 * 86_400 }),
            ("created:>7d", { age($0, fixture) > 7 * 86_400 }),
            ("created:<=2w", { age($0, fixture) <= 14 * 86_400 }),
            ("created:>=30h", { age($0, fixture) >= 30 * hour }),
            ("created:3d", { (3 * 86_400..<4 * 86_400).contains(age($0, fixture)) }),
            ("updated:<\(dayText)", { $0.updatedAt < midnight }),
            ("updated:<=\(dayText)", { $0.updatedAt < nextMidnight }),
            ("updated:>\(dayText)", { $0.updatedAt >= nextMidnight }),
            ("updated:>=\(dayText)", { $0.updatedAt >= midnight }),
            ("updated:\(dayText)", { $0.updatedAt >= midnight && $0.updatedAt < nextMidnight }),
            ("created:>3d created:<5d", { (3 * 86_400..<5 * 86_400).contains(age($0, fixture)) }),
            (
                "red @ada is:open prio:>=1 created:<20d",
                {
                    hasWord($0, "red") && ownerStarts($0, users, "ada") && $0.status == .open && $0.priority >= 1
                        && age($0, fixture) < 20 * 86_400
                }
            ),
            ("colour:red", { hasWord($0, "colour") && hasWord($0, "red") }),
            ("prio:9 red", { hasWord($0, "red") }),
            (#"red "apple pi"#, { hasWord($0, "red") && hasPhrase($0, "apple pi") }),
            ("http://red", { hasWord($0, "http") && hasWord($0, "red") }),
        ]
    }

    // MARK: Tests

    @Test(arguments: Backend.available)
    func everyOperatorSelectsWhatTheReferenceSelects(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let fixture = try await Self.fill(store)
            #expect(fixture.items.count == 47)
            for (text, predicate) in Self.cases(fixture) {
                let want = fixture.items.filter(predicate).map(\.id)
                let query = ItemQuery(text: text, sortField: .created, sortDirection: .ascending)
                let got = try await store.items.items(matching: query).map(\.id)
                #expect(got == want, "\(backend) \(text)")
                #expect(try await store.items.count(matching: query) == want.count, "\(backend) count \(text)")
                // Pages of 4 meet the same list, through whichever plan each page picks.
                var paged: [Item.ID] = []
                var cursor: ItemCursor?
                while true {
                    let page = try await store.items.items(matching: query, after: cursor, limit: 4)
                    paged += page.map(\.id)
                    guard let last = page.last, page.count == 4 else { break }
                    cursor = ItemCursor(last)
                }
                #expect(paged == want, "\(backend) paged \(text)")
            }
        }
    }

    @Test(arguments: Backend.available)
    func theTextNarrowsTogetherWithOwnerAndStatus(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let fixture = try await Self.fill(store)
            let owner = fixture.items[0].userID
            let query = ItemQuery(owner: owner, status: .open, text: "red is:open prio:>0")
            let want = fixture.items.filter {
                $0.userID == owner && $0.status == .open && Self.hasWord($0, "red") && $0.priority > 0
            }
            #expect(try await store.items.items(matching: query).map(\.id).sorted() == want.map(\.id).sorted())
            let conflicting = ItemQuery(status: .open, text: "is:done")
            #expect(try await store.items.count(matching: conflicting) == 0)
        }
    }

    /// SQLite's NOCASE: ASCII letters folded, then bytes.
    static func folded(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }

    static func ownerOrder(_ items: [Item], _ users: [User.ID: User], _ direction: ItemQuery.SortDirection)
        -> [Item.ID]
    {
        let ascending = items.sorted { a, b in
            let (x, y) = (folded(users[a.userID]?.name ?? ""), folded(users[b.userID]?.name ?? ""))
            if x != y { return x.lexicographicallyPrecedes(y) }
            return (a.userID, a.id) < (b.userID, b.id)
        }
        return (direction == .ascending ? ascending : ascending.reversed()).map(\.id)
    }

    @Test(arguments: Backend.available)
    func theOwnerOrderPagesForwardAndBackwardInBothDirections(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let fixture = try await Self.fill(store)
            let someone = fixture.items[3].userID
            for text in [
                "", "red", "is:open", "@z", "-red prio:<3", "status:done", "prio:>=2 created:<10d", "@z is:open",
            ] {
                for owner in [nil, someone] {
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        let query = ItemQuery(owner: owner, text: text, sortField: .owner, sortDirection: direction)
                        let matching = try await store.items.items(
                            matching: ItemQuery(owner: owner, text: text))
                        let want = Self.ownerOrder(matching, fixture.users, direction)
                        #expect(want.count == (try await store.items.count(matching: query)))
                        let label = "\(backend) \(direction) '\(text)' owner \(String(describing: owner))"
                        #expect(try await store.items.items(matching: query).map(\.id) == want, "\(label)")
                        for withName in [false, true] {
                            func cursor(_ item: Item) -> ItemCursor {
                                guard withName, let user = fixture.users[item.userID] else { return ItemCursor(item) }
                                return ItemCursor(item, ownerName: user.name)
                            }
                            var forward: [Item.ID] = []
                            var after: ItemCursor?
                            while true {
                                let page = try await store.items.items(matching: query, after: after, limit: 3)
                                forward += page.map(\.id)
                                guard let last = page.last, page.count == 3 else { break }
                                after = cursor(last)
                            }
                            #expect(forward == want, "forward \(label) names \(withName)")
                            var backward: [Item.ID] = []
                            var before: ItemCursor?
                            while true {
                                let page = try await store.items.items(matching: query, before: before, limit: 4)
                                backward = page.map(\.id) + backward
                                guard let first = page.first, page.count == 4 else { break }
                                before = cursor(first)
                            }
                            #expect(backward == want, "backward \(label) names \(withName)")
                        }
                    }
                }
            }
        }
    }

    /// A range of times in every other order, page by page, as one read of the same query and
    /// as many as its count: pages read the range first or walk past it by how many items it
    /// holds (`SQLiteItemRepository.walksPastTimes`, `PostgresItemRepository.readsRangeFirst`),
    /// a read without a limit never asks.
    @Test(arguments: Backend.available)
    func aRangeOfTimesPagesAlikeInEveryOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await Self.fill(store)
            for text in ["created:<10d", "created:>3d created:<20d", "updated:>100h", "is:open created:<10d"] {
                for field in ItemQuery.SortField.allCases where field != .owner {
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        let query = ItemQuery(text: text, sortField: field, sortDirection: direction)
                        let label = "\(backend) '\(text)' \(field) \(direction)"
                        let want = try await store.items.items(matching: query).map(\.id)
                        let counted = try await store.items.count(matching: query)
                        #expect(!want.isEmpty && want.count == counted, "\(label)")
                        var read: [Item.ID] = []
                        var cursor: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, after: cursor, limit: 4)
                            read += page.map(\.id)
                            guard let last = page.last, page.count == 4 else { break }
                            cursor = ItemCursor(last)
                        }
                        #expect(read == want, "\(label)")
                    }
                }
            }
        }
    }

    @Test(arguments: Backend.available)
    func aRenamedOwnerMovesItsItemsInTheOwnerOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let fixture = try await Self.fill(store)
            let query = ItemQuery(sortField: .owner, sortDirection: .ascending)
            let first = try #require(try await store.items.items(matching: query, limit: 1).first)
            var user = try #require(fixture.users[first.userID])
            user.name = "zzz last"
            try await store.users.update(user)
            var users = fixture.users
            users[user.id] = user
            let all = try await store.items.items(matching: query)
            #expect(all.map(\.id) == Self.ownerOrder(fixture.items, users, .ascending))
            #expect(all.last?.userID == user.id)
        }
    }
}

/// `ItemQuery.agesFrom`: ages count back from the moment given, on every backend, in pages and
/// counts alike (a marked selection's copy reads what matched when it was marked).
@Suite("Conformance: ages from a given moment")
struct AgesFromConformanceTests {
    @Test(arguments: Backend.available)
    func agesCountBackFromTheGivenMoment(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let now = Date()
            let old = try await store.items.insert(
                NewItem(userID: ann, title: "two hours old", createdAt: now.addingTimeInterval(-7200)))
            let new = try await store.items.insert(
                NewItem(userID: ann, title: "ten minutes old", createdAt: now.addingTimeInterval(-600)))
            // Older than an hour: counted from now, the two-hour-old item; from three hours
            // ago, none; from two hours ahead, both.
            var query = ItemQuery(text: "created:>1h", sortField: .created, sortDirection: .ascending)
            for (moment, expected) in [
                (nil, [old]), (now.addingTimeInterval(-3 * 3600), []), (now.addingTimeInterval(2 * 3600), [old, new]),
            ] as [(Date?, [Item.ID])] {
                query.agesFrom = moment
                #expect(try await store.items.items(matching: query, after: nil, limit: nil).map(\.id) == expected)
                #expect(try await store.items.count(matching: query) == expected.count)
            }
        }
    }
}
