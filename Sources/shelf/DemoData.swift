import Foundation
import ShelfStore

/// A small shelf to try the commands on: `--demo` opens a temporary store filled with this.
enum DemoData {
    static func fill(_ store: Store) async throws {
        let users = try await store.users.insert(contentsOf: [
            NewUser(name: "Ada Lovelace", email: "ada@example.com"),
            NewUser(name: "Grace Hopper", email: "grace@example.com"),
            NewUser(name: "Alan Turing", email: "alan@example.com"),
        ])
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let titles = [
            ("Read \"Notes on the Analytical Engine\"", "Translate Menabrea first", 2),
            ("Fix the moth in relay 70", "Panel F; tape it into the log", 3),
            ("Write the compiler manual", nil, 1),
            ("Bake bread for the team", "Sourdough, two loaves", 0),
            ("Prove the halting problem undecidable", "Diagonal argument", 3),
            ("Order punch cards", "Two boxes", 1),
            ("Water the orchids", nil, 0),
            ("Plan the 1843 lecture", "Bernoulli numbers example", 2),
            ("Tidy the workshop", nil, 0),
            ("Answer letters", "From Babbage, De Morgan", 1),
            ("Calibrate the bombe", "Rotor order test", 2),
            ("Buy a new bicycle chain", nil, 1),
        ]
        let items = titles.enumerated().map { index, entry in
            NewItem(
                userID: users[index % users.count], title: entry.0, notes: entry.1,
                status: index % 4 == 3 ? .done : .open, priority: entry.2,
                createdAt: start.addingTimeInterval(Double(index) * 86_400))
        }
        _ = try await store.items.insert(contentsOf: items)
    }
}
