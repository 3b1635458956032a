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

        /// The most items a line may list: a line is built in memory, and a watcher of more
        /// than this wants `shelf export`, not a live window.
        static let maximumLimit = 10_000

        func validate() throws {
            guard (1...Self.maximumLimit).contains(limit) else {
                throw ValidationError(
                    "--limit must be between 1 and \(Self.maximumLimit) (each line lists that many items)")
            }
        }

        /// Runs until a signal cancels it (the process then exits with 128 + its number), the
        /// reader of stdout goes away (exit 0: `shelf watch items | head -1` ends as soon as
        /// `head` does, not at the next change), or a line cannot be written (exit 1). The
        /// store is released when this returns.
        func run() async throws {
            let store = try await database.openStore()
            let live = try await store.liveItems(matching: try await filter.itemQuery(in: store), limit: limit)
            // Owners by email, as `list` and `export` show them: a line is printed when the
            // window or one of its owners' emails changed, not for any change to users.
            let users = try await store.liveUsers()
            let lines = combineLatest(live, users).map { window, users -> LiveResult<WindowLine> in
                switch (window, users) {
                case (.success(let window), .success(let users)): .success(WindowLine(window, users: users))
                case (.failure(let error), _), (_, .failure(let error)): .failure(error)
                }
            }.skipRepeats()
            let stop = StopLatch()
            StandardOutput.whenReaderGone { stop.stop(throwing: ReaderGone()) }
            let writer = NewestLineWriter { stop.stop(throwing: $0) }
            defer { writer.close() }
            // Ended (cancelled) when the scope ends, after the latch: every way out goes
            // through `stop`.
            async let printing: Void = Self.print(lines.values, store: store, to: writer, stop: stop)
            try await stop.wait()
            withExtendedLifetime(lines) {}
            await printing
        }

        /// Prints each line of `lines` that differs from the one printed before, after checking
        /// its items hold what Shelf stores (`Store.refuseMistypedItems`: a title that is not
        /// UTF-8, written by another program, is refused with its row named as `list` and
        /// `export` refuse it, not printed as U+FFFD). Ends when the task is cancelled; a file
        /// replaced under it or a line that cannot be encoded stops `stop`.
        private static func print(
            _ lines: AsyncStream<LiveResult<WindowLine>>, store: Store, to writer: NewestLineWriter, stop: StopLatch
        ) async {
            let encoder = JSONEncoder.lines
            var printed: WindowLine?
            for await result in lines {
                let line: WindowLine
                switch result {
                case .success(let value): line = value
                case .failure(let error) where error.code == .fileReplaced:
                    // The file is gone or another one: nothing this process reads is true now.
                    stop.stop(throwing: CommandError(error.message))
                    return
                case .failure(let error):
                    // Said once per failure; the query retries by itself and lines resume.
                    printError("Error: \(error.message) (still watching; retrying)")
                    continue
                }
                // After a failure (a lost connection, say) the value is often what was printed
                // before it: print only what changed.
                guard printed != line else { continue }
                printed = line
                do {
                    try await store.refuseMistypedItems(line.items.map { Item.ID($0.id) })
                } catch let error as StoreError {
                    printError(
                        "Error: \(error.message) (watch goes on: the window is printed once the row is corrected)")
                    continue
                } catch {
                    return  // cancelled
                }
                do {
                    // Never blocks: a stalled reader keeps only the newest line waiting.
                    writer.post(JSONEncoder.escapingInvisibles(try encoder.encode(line)) + [0x0A])
                } catch {
                    stop.stop(throwing: error)
                    return
                }
            }
        }
    }
}

/// One line of `shelf watch items`: how many items match, and the first of them with their
/// owner's email in `user`, as exports write it (null for an item whose user is gone, as the
/// HTTP API writes it).
struct WindowLine: Encodable, Hashable, Sendable {
    struct WatchedItem: Encodable, Hashable, Sendable {
        let id: Int64
        let user: String?
        let title: String
        let notes: String?
        let status: Item.Status
        let priority: Int
        let createdAt: Date
        let updatedAt: Date
        let version: Int64

        private enum CodingKeys: String, CodingKey {
            case id, user, title, notes, status, priority, createdAt, updatedAt, version
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(user, forKey: .user)  // null, not left out, when the user is gone
            try container.encode(title, forKey: .title)
            try container.encodeIfPresent(notes, forKey: .notes)
            try container.encode(status, forKey: .status)
            try container.encode(priority, forKey: .priority)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(updatedAt, forKey: .updatedAt)
            try container.encode(version, forKey: .version)
        }
    }

    let count: Int
    let items: [WatchedItem]

    init(_ window: ItemWindow, users: [User]) {
        let emails = Dictionary(users.map { ($0.id, $0.email) }, uniquingKeysWith: { first, _ in first })
        count = window.totalCount
        items = window.items.map { item in
            WatchedItem(
                id: item.id.rawValue, user: emails[item.userID], title: item.title, notes: item.notes,
                status: item.status, priority: item.priority, createdAt: item.createdAt, updatedAt: item.updatedAt,
                version: item.version)
        }
    }
}

extension JSONEncoder {
    /// `json` with DEL, the C1 controls, the line and paragraph separators (U+2028, U+2029)
    /// and the bidirectional marks, overrides and isolates written as `\uXXXX` escapes: the same strings to any JSON reader, but nothing a
    /// terminal would act on (JSONEncoder escapes only the C0 controls). They can only occur
    /// inside strings, so the escapes are always valid there.
    static func escapingInvisibles(_ json: Data) -> [UInt8] {
        let bytes = [UInt8](json)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var scalar: UInt32?
            var length = 1
            if byte == 0x7F {
                scalar = 0x7F
            } else if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] < 0xA0 {
                (scalar, length) = (UInt32(bytes[index + 1]), 2)
            } else if byte == 0xD8, index + 1 < bytes.count, bytes[index + 1] == 0x9C {
                (scalar, length) = (0x061C, 2)
            } else if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80 || bytes[index + 1] == 0x81 {
                let value = 0x2000 + (UInt32(bytes[index + 1] & 0x3F) << 6) + UInt32(bytes[index + 2] & 0x3F)
                if value == 0x200E || value == 0x200F || value == 0x2028 || value == 0x2029
                    || (0x202A...0x202E).contains(value)
                    || (0x2066...0x2069).contains(value)
                {
                    (scalar, length) = (value, 3)
                }
            }
            if let scalar {
                let hex = String(scalar, radix: 16)
                output.append(contentsOf: Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8))
            } else {
                output.append(byte)
            }
            index += length
        }
        return output
    }

    /// Compact, keys sorted and in snake case, dates as UTC ISO 8601 with milliseconds
    /// (`TimeFormat`, as exports write them).
    static var lines: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(TimeFormat.iso8601(date))
        }
        return encoder
    }
}
