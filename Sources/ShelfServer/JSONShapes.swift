#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    internal import ShelfStore

    /// Items, users and views as JSON: the fields `shelf export --format json` writes (times
    /// in UTC with milliseconds, an item's owner by email as `user`), plus `user_id` and
    /// `version` (the value of the `ETag`).
    enum JSONShapes {
        static func item(_ item: Item, ownerEmail: String?) -> JSONValue {
            .object([
                "id": .integer(item.id.rawValue), "user": ownerEmail.map(JSONValue.string) ?? .null,
                "user_id": .integer(item.userID.rawValue), "title": .string(item.title),
                "notes": item.notes.map(JSONValue.string) ?? .null, "status": .string(item.status.rawValue),
                "priority": .integer(Int64(item.priority)), "created_at": time(item.createdAt),
                "updated_at": time(item.updatedAt), "version": .integer(item.version),
            ])
        }

        static func user(_ user: User) -> JSONValue {
            .object([
                "id": .integer(user.id.rawValue), "name": .string(user.name), "email": .string(user.email),
                "created_at": time(user.createdAt),
            ])
        }

        static func view(_ view: SavedView) -> JSONValue {
            .object([
                "id": .integer(view.id.rawValue), "name": .string(view.name), "query": .string(view.queryText),
                "sort": .string(view.sortFieldName),
                "order": .string(view.sortDirection == .ascending ? "asc" : "desc"),
                "owner_id": view.owner.map { .integer($0.rawValue) } ?? .null, "created_at": time(view.createdAt),
                "updated_at": time(view.updatedAt), "version": .integer(view.version),
            ])
        }

        static func time(_ date: Date) -> JSONValue {
            // Clamped, not trapping: another program can store any number there (the hostile
            // tester's Int64.max created_at ended the whole server).
            .string(TimeFormat.iso8601(date))
        }

        /// `items` as JSON, each with its owner's email (read once per owner).
        static func items(_ items: [Item], store: Store) async throws -> [JSONValue] {
            let emails = try await ownerEmails(of: items, store: store)
            return items.map { Self.item($0, ownerEmail: emails[$0.userID] ?? nil) }
        }

        /// The email of each distinct owner of `items` (nil for an owner that no longer
        /// exists), read once per owner, up to `ownerReads` at a time: on PostgreSQL each read
        /// is a round trip, and a window of ten items of ten owners read one after another
        /// waited for ten in a row (issue 24's shared live windows).
        static func ownerEmails(of items: [Item], store: Store) async throws -> [User.ID: String?] {
            var owners: [User.ID] = []
            var seen = Set<User.ID>()
            for item in items where seen.insert(item.userID).inserted { owners.append(item.userID) }
            guard owners.count > 1 else {
                guard let owner = owners.first else { return [:] }
                return [owner: try await store.users.user(id: owner)?.email]
            }
            return try await withThrowingTaskGroup(of: (User.ID, String?).self) { group in
                var emails: [User.ID: String?] = [:]
                var next = owners.makeIterator()
                for _ in 0..<ownerReads {
                    guard let owner = next.next() else { break }
                    group.addTask { (owner, try await store.users.user(id: owner)?.email) }
                }
                while let (owner, email) = try await group.next() {
                    emails[owner] = .some(email)
                    if let owner = next.next() {
                        group.addTask { (owner, try await store.users.user(id: owner)?.email) }
                    }
                }
                return emails
            }
        }

        /// How many owners `ownerEmails` reads at once.
        static let ownerReads = 4
    }

    /// A request's query parameters, percent-decoded strictly: a parameter that is not valid
    /// UTF-8 once decoded, or is given twice, is a 400 (Foundation would repair or drop it).
    struct QueryParameters {
        private var values: [String: String] = [:]

        init(_ query: String?) throws {
            guard let query, !query.isEmpty else { return }
            for part in query.split(separator: "&", omittingEmptySubsequences: true) {
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.decode(pieces[0], what: "a parameter's name")
                let value = try Self.decode(pieces.count > 1 ? pieces[1] : "", what: "parameter '\(name)'")
                guard values[name] == nil else {
                    throw Problem(.badRequest, "parameter '\(name)' is given twice; give it once")
                }
                values[name] = value
            }
        }

        subscript(name: String) -> String? { values[name] }

        /// Refuses parameters other than `known`.
        func allowOnly(_ known: [String]) throws {
            let unknown = Set(values.keys).subtracting(known).sorted()
            guard let first = unknown.first else { return }
            let takes = known.isEmpty ? "no parameters" : known.map { "'\($0)'" }.joined(separator: ", ")
            throw Problem(
                .badRequest, "unknown parameter '\(JSONReader.printable(first))'; this route takes \(takes)")
        }

        /// Refuses any parameter: for routes that take none (a `limit` there would be ignored).
        static func none(_ request: Request) throws {
            try QueryParameters(request.uri.query).allowOnly([])
        }

        /// `name` as an integer in `range`, `fallback` when absent.
        func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
            guard let text = values[name] else { return fallback }
            guard let value = Int(text), range.contains(value) else {
                throw Problem(
                    .badRequest,
                    "parameter '\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }

        private static func decode(_ text: Substring, what: String) throws -> String {
            var bytes: [UInt8] = []
            var iterator = text.utf8.makeIterator()
            while let byte = iterator.next() {
                switch byte {
                case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
                case UInt8(ascii: "%"):
                    guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                    else {
                        throw Problem(
                            .badRequest, "\(what) has a % not followed by two hex digits; percent-encode it as %25")
                    }
                    bytes.append(high << 4 | low)
                default: bytes.append(byte)
                }
            }
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw Problem(.badRequest, "\(what) is not valid UTF-8 once percent-decoded; send UTF-8")
            }
            return decoded
        }

        private static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
#endif
