#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    internal import ShelfStore

    extension ShelfAPI {
        static let itemFields = "'title', 'user' (an email) or 'user_id', 'status', 'priority', 'notes'"

        func addItemRoutes<Context: RequestContext>(to api: RouterGroup<Context>) {
            api.read("items") { request, _ in try await self.listItems(request) }
            api.read("items/live") { request, context in try await self.liveItems(request, context: context) }
            api.read("items/{id}") { request, context in
                try QueryParameters.none(request)
                return try await self.getItem(request, context: context)
            }
            api.post("items") { request, _ in try await self.addItem(request) }
            api.patch("items/{id}") { request, context in try await self.changeItem(request, context: context) }
            api.delete("items/{id}") { request, context in try await self.removeItem(request, context: context) }
        }

        /// `GET /api/items`. The answer's bytes are kept for the request's exact query string at
        /// the store's content version read first (`ItemPageCache`): while nothing changes, the
        /// same request is answered from them after one read of the version (the one
        /// `TokenMiddleware` made for this request, if it made one: it is as early, and no older
        /// than the request).
        private func listItems(_ request: Request) async throws -> Response {
            var version = RequestContentVersion.current
            if version == nil { version = try await store.contentVersion() }
            let key = request.uri.query ?? ""
            if let version, let body = itemPages.body(for: key, at: version) {
                return JSONResponse.make(.ok, body: body)
            }
            let parameters = try QueryParameters(request.uri.query)
            try parameters.allowOnly(["q", "sort", "order", "limit", "after"])
            let query = try Self.itemQuery(parameters)
            let limit = try parameters.integer("limit", in: 1...Self.maximumLimit, default: Self.defaultLimit)
            let cursor = try parameters["after"].map { try Self.decodeCursor($0, for: query) }
            var page = try await store.items.items(matching: query, after: cursor, limit: limit + 1)
            let more = page.count > limit
            if more { page.removeLast() }
            // The page reads values of the wrong type as they come (text in a time as 1970);
            // served, they would pass for stored. Refused as GET /api/items/{id} refuses them.
            try await store.refuseMistypedItems(page.map(\.id))
            let count = try await store.items.count(matching: query)
            var next = JSONValue.null
            if more, let last = page.last {
                next = .string(try await encodeCursor(last, for: query))
            }
            let value = JSONValue.object([
                "count": .integer(Int64(count)), "items": .array(try await JSONShapes.items(page, store: store)),
                "next": next,
            ])
            let body = ByteBuffer(bytes: value.encoded())
            if let version { itemPages.store(body, for: key, at: version) }
            return JSONResponse.make(.ok, body: body)
        }

        /// The `ItemQuery` of `q`, `sort` and `order`; a query problem is a 400 naming its column.
        static func itemQuery(_ parameters: QueryParameters) throws -> ItemQuery {
            var query = ItemQuery(text: parameters["q"] ?? "")
            let problems = ItemQueryText(query.text).problems
            if !problems.isEmpty {
                throw Problem(.badRequest, "q: " + problems.map(\.description).joined(separator: "; "))
            }
            if let sort = parameters["sort"] {
                guard let field = ItemQuery.SortField(rawValue: sort) else {
                    let names = ItemQuery.SortField.allCases.map(\.rawValue).joined(separator: ", ")
                    throw Problem(.badRequest, "sort must be one of \(names)")
                }
                query.sortField = field
            }
            switch parameters["order"] {
            case nil: break
            case "asc"?: query.sortDirection = .ascending
            case "desc"?: query.sortDirection = .descending
            default: throw Problem(.badRequest, "order must be asc or desc")
            }
            return query
        }

        /// A page's `next`: the last item's position and the ordering it is a position in, so that
        /// it cannot be used with another (where it would skip or repeat items).
        struct PageCursor: Codable {
            let sort: String
            let order: String
            let position: ItemCursor

            static func order(of query: ItemQuery) -> String { query.sortDirection == .ascending ? "asc" : "desc" }
        }

        private func encodeCursor(_ item: Item, for query: ItemQuery) async throws -> String {
            var position = ItemCursor(item)
            if query.sortField == .owner {
                position = ItemCursor(item, ownerName: try await store.users.user(id: item.userID)?.name ?? "")
            }
            let cursor = PageCursor(
                sort: query.sortField.rawValue, order: PageCursor.order(of: query), position: position)
            // base64url without padding, mapped byte by byte (Foundation's replacingOccurrences
            // took as long as the whole page's JSON).
            let base64 = try JSONEncoder().encode(cursor).base64EncodedString()
            let bytes = base64.utf8.compactMap { byte -> UInt8? in
                switch byte {
                case UInt8(ascii: "+"): UInt8(ascii: "-")
                case UInt8(ascii: "/"): UInt8(ascii: "_")
                case UInt8(ascii: "="): nil
                default: byte
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The position `text` (a page's `next`) names; a 400 when it is not one, or was made for
        /// another sort or order than `query`'s.
        static func decodeCursor(_ text: String, for query: ItemQuery) throws -> ItemCursor {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard text.utf8.count <= 4_096, let data = Data(base64Encoded: base64),
                let cursor = try? JSONDecoder().decode(PageCursor.self, from: data)
            else {
                throw Problem(.badRequest, "after is not a cursor this server gave; pass a page's 'next' as it is")
            }
            // Every time the store keeps is a whole number of milliseconds in Int64's range; a
            // forged cursor with a time beyond it (1e300) was never given by this server.
            let times = [cursor.position.createdAt, cursor.position.updatedAt]
            guard times.allSatisfy({ Self.isStorable($0) }) else {
                throw Problem(.badRequest, "after is not a cursor this server gave; pass a page's 'next' as it is")
            }
            let order = PageCursor.order(of: query)
            guard cursor.sort == query.sortField.rawValue, cursor.order == order else {
                throw Problem(
                    .badRequest,
                    "after is a cursor of sort=\(JSONReader.printable(cursor.sort))&order=\(JSONReader.printable(cursor.order)), "
                        + "not of this request's sort=\(query.sortField.rawValue)&order=\(order); keep the sort and order "
                        + "of the page that gave it, or start again without after")
            }
            return cursor.position
        }

        /// True when `date` is a finite time whose milliseconds since 1970 fit in Int64, as every
        /// time the store keeps does.
        static func isStorable(_ date: Date) -> Bool {
            let milliseconds = date.timeIntervalSince1970 * 1000
            return milliseconds.isFinite && milliseconds > -0x1p63 && milliseconds < 0x1p63
        }

        static func itemID<Context: RequestContext>(_ context: Context) throws -> Item.ID {
            guard let text = context.parameters.get("id"), let value = Int64(text), value > 0 else {
                throw Problem(.badRequest, "an item's ID is a positive integer, as in /api/items/42")
            }
            return Item.ID(value)
        }

        private func requireItem(_ id: Item.ID) async throws -> Item {
            guard let item = try await store.items.item(id: id) else {
                throw Problem(.notFound, "no item has the ID \(id.rawValue); list them with GET /api/items")
            }
            return item
        }

        private func getItem<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
            let item = try await requireItem(try Self.itemID(context))
            return try await itemResponse(.ok, item)
        }

        private func itemResponse(_ status: HTTPResponse.Status, _ item: Item, location: Bool = false) async throws
            -> Response
        {
            var headers: HTTPFields = [.eTag: ETag.make(item.version)]
            if location { headers[.location] = "/api/items/\(item.id.rawValue)" }
            let email = try await store.users.user(id: item.userID)?.email
            return JSONResponse.make(status, JSONShapes.item(item, ownerEmail: email), headers: headers)
        }

        private func addItem(_ request: Request) async throws -> Response {
            try QueryParameters.none(request)
            var fields = BodyFields(try await Self.body(request))
            guard let title = try fields.string("title") else {
                throw Problem(.badRequest, "field 'title' is required: the item's title, not empty")
            }
            // With a token, the owner may be left out: the token's user.
            let owner = try await owner(&fields, required: true) ?? APICaller.current?.token.userID
            let status = try Self.status(&fields) ?? .open
            let priority = try Self.priority(&fields) ?? 0
            let notes = try fields.string("notes")
            try fields.finish(known: Self.itemFields)
            guard let owner else { throw Problem(.badRequest, "give the owner as 'user' (an email) or 'user_id'") }
            try APICaller.requireWrite(toItemsOf: owner, "add an item for another user")
            let id = try await store.items.insert(
                NewItem(userID: owner, title: title, notes: notes, status: status, priority: priority))
            let path = "/api/items/\(id.rawValue)"
            return try await CommittedWrite.answer(
                .created, "item \(id.rawValue)", id: id.rawValue, at: path, location: true
            ) {
                try await itemResponse(.created, try await requireItem(id), location: true)
            }
        }

        private func changeItem<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response
        {
            try QueryParameters.none(request)
            let id = try Self.itemID(context)
            let expected = try ETag.required(request)
            var fields = BodyFields(try await Self.body(request))
            try fields.requireSome(known: Self.itemFields)
            try fields.refuseNull(["user", "user_id", "status", "priority"])
            let stored = try await requireItem(id)
            var item = stored
            try APICaller.requireWrite(toItemsOf: item.userID, "change an item of another user")
            try ETag.check(expected, stored: item.version, what: "item \(id.rawValue)")
            if let title = try fields.string("title") {
                item.title = title
            } else if fields.has("title") {
                throw Problem(.badRequest, "field 'title' cannot be null; give a title")
            }
            if let owner = try await owner(&fields, required: false) {
                try APICaller.requireWrite(toItemsOf: owner, "give an item to another user")
                item.userID = owner
            }
            if let status = try Self.status(&fields) { item.status = status }
            if let priority = try Self.priority(&fields) { item.priority = priority }
            if fields.has("notes") { item.notes = try fields.string("notes") }
            try fields.finish(known: Self.itemFields)
            // Values the item has already: nothing changes, not even its version or updated_at.
            if item == stored { return try await itemResponse(.ok, stored) }
            let updated: Item
            do {
                updated = try await store.items.update(item)
            } catch let error as StoreError where error.code == .conflict {
                throw Problem(
                    .preconditionFailed, "item \(id.rawValue) changed since version \(item.version); GET it again")
            }
            return try await CommittedWrite.answer(
                .ok, "item \(id.rawValue)", id: id.rawValue, at: "/api/items/\(id.rawValue)", location: false
            ) {
                try await itemResponse(.ok, updated)
            }
        }

        private func removeItem<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response
        {
            try QueryParameters.none(request)
            let id = try Self.itemID(context)
            let expected = try ETag.required(request)
            let item = try await requireItem(id)
            try APICaller.requireWrite(toItemsOf: item.userID, "delete an item of another user")
            try ETag.check(expected, stored: item.version, what: "item \(id.rawValue)")
            // Compare-and-set: deleted only while still at the version (and owner) just checked,
            // so a PATCH committed since is never deleted unseen.
            do {
                try await store.items.delete(item)
            } catch let error as StoreError where error.code == .conflict {
                throw Problem(
                    .preconditionFailed,
                    "item \(id.rawValue) changed since version \(item.version) was checked; nothing was deleted: "
                        + "GET it again")
            }
            return Response(status: .noContent)
        }

        /// The owner a body names by `user` (an email) or `user_id`, checked to exist.
        private func owner(_ fields: inout BodyFields, required: Bool) async throws -> User.ID? {
            let email = try fields.string("user")
            let id = try fields.integer("user_id")
            switch (email, id) {
            case (let email?, nil):
                guard let user = try await store.users.user(email: email) else {
                    throw Problem(
                        .badRequest,
                        "no user has the email '\(email)'; add one with POST /api/users or `shelf users add --name NAME --email EMAIL`"
                    )
                }
                return user.id
            case (nil, let id?):
                guard try await store.users.user(id: User.ID(id)) != nil else {
                    throw Problem(.badRequest, "no user has the ID \(id); list them with GET /api/users")
                }
                return User.ID(id)
            case (nil, nil): return nil
            case (_?, _?): throw Problem(.badRequest, "give the owner as 'user' or as 'user_id', not both")
            }
        }

        private static func status(_ fields: inout BodyFields) throws -> Item.Status? {
            guard let text = try fields.string("status") else { return nil }
            guard let status = Item.Status(rawValue: text) else {
                throw Problem(.badRequest, "field 'status' must be open or done")
            }
            return status
        }

        private static func priority(_ fields: inout BodyFields) throws -> Int? {
            guard let value = try fields.integer("priority") else { return nil }
            guard Item.priorities.contains(Int(clamping: value)) else {
                throw Problem(
                    .badRequest,
                    "field 'priority' must be \(Item.priorities.lowerBound) (lowest) to \(Item.priorities.upperBound) (highest)"
                )
            }
            return Int(value)
        }

        /// The request's body as a JSON object, at most `maximumBodyBytes`; a 415 unless its
        /// `Content-Type` is `application/json`. A browser sends `text/plain` (or a form) from
        /// any page without asking the server first; only JSON needs a CORS preflight, so
        /// taking only JSON keeps other sites' pages from writing.
        static func body(_ request: Request) async throws -> [String: JSONValue] {
            // Refused from the declared length at once, before waiting for bytes that may never come.
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maximumBodyBytes {
                throw Problem(
                    .contentTooLarge,
                    "the request body is larger than the server takes (\(maximumBodyBytes) bytes): "
                        + "Content-Length is \(declared); send less")
            }
            let mediaType = request.headers[.contentType]?.split(separator: ";").first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard mediaType == "application/json" else {
                throw Problem(
                    .unsupportedMediaType,
                    "the body must be JSON sent with Content-Type: application/json, not "
                        + (request.headers[.contentType].map { "'\(JSONReader.printable($0))'" } ?? "no Content-Type"))
            }
            let buffer = try await request.body.collect(upTo: maximumBodyBytes)
            // Said as what it is, not as JSON ending "where a value should be at byte 1"
            // (hostile round 13).
            guard buffer.readableBytes > 0 else {
                throw Problem(
                    .badRequest,
                    "the request has no body; send a JSON object (Content-Type: application/json) with the "
                        + "fields to store")
            }
            return try JSONValue.object(from: Array(buffer.readableBytesView))
        }
    }

    /// Entity tags: a stored version as `"N"`, and the `If-Match` rules (428 without one, 412
    /// when it names another version).
    enum ETag {
        static func make(_ version: Int64) -> String { "\"\(version)\"" }

        /// The tags `If-Match` names (nil for `*`), weak ones (`W/"N"`) as given, so that they
        /// match nothing; a 428 when it is missing, a 400 when a tag is not quoted.
        static func required(_ request: Request) throws -> [String]? {
            guard let header = request.headers[.ifMatch] else {
                throw Problem(
                    .preconditionRequired,
                    "this change needs If-Match with the ETag of a GET, so that it does not overwrite a change made since"
                )
            }
            let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains("*") { return nil }
            // An unquoted tag (`If-Match: 1`) names no ETag; a 412 would say "changed since"
            // about an item that did not change.
            let quoted = tags.allSatisfy { tag in
                let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
                return opaque.count >= 2 && opaque.hasPrefix("\"") && opaque.hasSuffix("\"")
            }
            guard quoted, !tags.isEmpty else {
                throw Problem(
                    .badRequest,
                    "If-Match must name ETags in double quotes, as the ETag header gives them: "
                        + "If-Match: \"1\", not If-Match: \(JSONReader.printable(header))")
            }
            // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag stays `W/"N"`, which no
            // stored version's tag equals, so it never matches.
            return tags
        }

        /// A 412 when `expected` does not name `stored`.
        static func check(_ expected: [String]?, stored: Int64, what: String) throws {
            guard let expected, !expected.contains(make(stored)) else { return }
            throw Problem(
                .preconditionFailed,
                "\(what) changed since: it is at version \(stored), If-Match named \(expected.joined(separator: ", ")); GET it again"
            )
        }

        /// The tag of a value that has no version column: a hash of its fields (FNV-1a).
        static func hash(_ text: String) -> String {
            var value: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                value ^= UInt64(byte)
                value &*= 0x100_0000_01b3
            }
            return "\"" + String(value, radix: 16) + "\""
        }
    }
#endif
