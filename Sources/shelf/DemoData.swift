import Foundation
import ShelfStore

/// Realistic sample users and items, the same on every run (a seeded generator).
enum DemoData {
    /// What `--demo` creates on first use.
    static let defaultUsers = 40
    static let defaultItems = 20_000

    /// Adds `users` users and `items` items to `store`, reporting progress (items written so
    /// far) after every batch. Items are created over the year before `now`, oldest first.
    /// The sample users are the same on every run: those already there (by email, from an
    /// earlier run) are reused, not added twice. Returns how many users were added.
    @discardableResult
    static func fill(
        _ store: Store, users userCount: Int, items itemCount: Int, now: Date = Date(),
        progress: (Int) -> Void = { _ in }
    ) async throws -> Int {
        var random = SeededRandomNumberGenerator(seed: 2026)
        var newUsers: [NewUser] = []
        var emails = Set<String>()
        for index in 0..<max(1, userCount) {
            let first = firstNames[index % firstNames.count]
            let last = lastNames[(index / firstNames.count + index * 7) % lastNames.count]
            var email = "\(first).\(last.replacingOccurrences(of: " ", with: ""))@example.com".lowercased().folding(
                options: .diacriticInsensitive, locale: nil)
            if emails.contains(email) { email = email.replacingOccurrences(of: "@", with: "\(index)@") }
            emails.insert(email)
            newUsers.append(
                NewUser(name: "\(first) \(last)", email: email, createdAt: now.addingTimeInterval(-400 * 86_400)))
        }
        var owners: [User.ID] = []
        var missing: [NewUser] = []
        for user in newUsers {
            if let existing = try await store.users.user(email: user.email) {
                owners.append(existing.id)
            } else {
                missing.append(user)
            }
        }
        owners += try await store.users.insert(contentsOf: missing)
        let span = 365.0 * 86_400
        var written = 0
        while written < itemCount {
            try Task.checkCancellation()
            let batch = min(20_000, itemCount - written)
            var items: [NewItem] = []
            items.reserveCapacity(batch)
            for offset in 0..<batch {
                let n = written + offset
                let age = span * (1 - Double(n) / Double(max(1, itemCount)))
                let title = makeTitle(&random)
                let notes = random.next() % 3 == 0 ? makeNotes(&random) : nil
                let doneChance = 0.15 + 0.6 * age / span  // older items are more often done
                let status: Item.Status = Double(random.next() % 1000) / 1000 < doneChance ? .done : .open
                let roll = random.next() % 10
                let priority = roll < 4 ? 0 : roll < 7 ? 1 : roll < 9 ? 2 : 3
                items.append(
                    NewItem(
                        userID: owners[Int(random.next() % UInt64(owners.count))], title: title, notes: notes,
                        status: status, priority: priority, createdAt: now.addingTimeInterval(-age)))
            }
            try await store.items.insert(contentsOf: items)
            written += batch
            progress(written)
        }
        return missing.count
    }

    private static func makeTitle(_ random: inout SeededRandomNumberGenerator) -> String {
        let verb = verbs[Int(random.next() % UInt64(verbs.count))]
        let object = objects[Int(random.next() % UInt64(objects.count))]
        let suffix = suffixes[Int(random.next() % UInt64(suffixes.count))]
        return "\(verb) \(object)\(suffix)"
    }

    private static func makeNotes(_ random: inout SeededRandomNumberGenerator) -> String {
        let count = 1 + Int(random.next() % 3)
        return (0..<count).map { _ in sentences[Int(random.next() % UInt64(sentences.count))] }.joined(separator: " ")
    }

    static let firstNames = [
        "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Frances", "Dennis", "Radia",
        "Linus", "Hedy", "Tim", "Katherine", "John", "Sophie", "Guido", "Anita", "Yukihiro", "Chloé", "Zoë", "Søren",
        "Priya", "Mateus", "Aiko", "Olu", "Ines", "Björn", "Mei",
    ]
    static let lastNames = [
        "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Thompson", "Allen", "Ritchie",
        "Perlman", "Torvalds", "Lamarr", "Berners-Lee", "Johnson", "McCarthy", "Wilson", "van Rossum", "Borg",
        "Matsumoto", "Dupont", "Okafor", "Kjær", "Nair", "Silva", "Tanaka", "Müller", "García", "O'Brien", "Chen",
    ]
    static let verbs = [
        "Review", "Write", "Fix", "Plan", "Call", "Order", "Update", "Draft", "Prepare", "Book", "Clean", "Test",
        "Deploy", "Schedule", "Read", "Pay", "Renew", "Email", "Sketch", "Measure", "Archive", "Translate",
    ]
    static let objects = [
        "the quarterly report", "the garden fence", "flights to Lisbon", "the dentist appointment",
        "the budget spreadsheet", "the onboarding guide", "release notes", "the kitchen tap", "the team offsite",
        "the insurance renewal", "the conference talk", "the database backup", "a birthday present for Sam",
        "the tax return", "the bike brakes", "the API documentation", "customer feedback", "server certificates",
        "library books", "the photo album", "the café menu", "日本語のドキュメント", "the moth in relay 70",
        "punch cards", "the sourdough starter", "the lecture on Bernoulli numbers", "the 🎂 order", "invoices",
    ]
    static let suffixes = [
        "", "", "", " before Friday", " for the Q3 review", " (again)", " with Priya", " — urgent", " next week",
        " for the Berlin office",
    ]
    static let sentences = [
        "Check with finance first.", "The old version is in the shared drive.", "Ask Grace about the deadline.",
        "Two copies, one signed.", "Blocked until the vendor replies.", "Keep it under 500 words.",
        "See the thread from Monday.", "Bring the receipts.", "Use the new template.", "Nothing urgent.",
    ]
}
