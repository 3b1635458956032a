import ArgumentParser
import Foundation
import ShelfReactive
import ShelfStore

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print live results as JSON lines until interrupted.",
        subcommands: [Items.self])

    struct Items: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the matching items as one JSON line, then a line after every change.",
            discussion: """
                Each line is {"count": N, "items": [...]}: the total number of matching items and the \
                first --limit of them. Changes made by any process (another shelf, the sqlite3 shell, \
                a script) are seen. Runs until interrupted (Ctrl-C).
                """)

        @OptionGroup var database: DatabaseOptions

        @OptionGroup var filter: ItemFilterOptions

        @Option(help: "How many items each line lists.")
        var limit = 50

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        }

        /// Runs until a signal cancels it (the process then exits with 128 + its number), the
        /// reader of stdout goes away (exit 0: `shelf watch items | head -1` ends as soon as
        /// `head` does, not at the next change), or a line cannot be written (exit 1). The
        /// store is released when this returns.
        func run() async throws {
            let store = try await database.openStore()
            let live = try store.liveItems(matching: try await filter.itemQuery(in: store), limit: limit)
            let encoder = JSONEncoder.lines
            let stop = StopLatch()
            StandardOutput.whenReaderGone { stop.stop(throwing: ReaderGone()) }
            let token = Lifetime.Token()
            live.observe(during: token.lifetime) { window in
                do {
                    try StandardOutput.write(try encoder.encode(WindowLine(window)) + Data("\n".utf8))
                } catch {
                    stop.stop(throwing: error)
                }
            }
            try await stop.wait()
            withExtendedLifetime(token) {}
        }
    }
}

/// One line of `shelf watch items`.
struct WindowLine: Encodable {
    let count: Int
    let items: [Item]

    init(_ window: ItemWindow) {
        count = window.totalCount
        items = window.items
    }
}

extension JSONEncoder {
    /// Compact, keys sorted and in snake case, dates as UTC ISO 8601 with milliseconds
    /// (`UTCTime`, as exports write them).
    static var lines: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCTime.iso(date))
        }
        return encoder
    }
}
