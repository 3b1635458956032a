#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    internal import ShelfStore

    extension ShelfAPI {
        static let userFields = "'name', 'email'"

        func addUserRoutes<Context: RequestContext>(to api: RouterGroup<Context>) {
            api.read("users") { request, _ in try await self.listUsers(request) }
            api.read("users/{id}") { request, context in
                try QueryParameters.none(request)
                return self.userResponse(.ok, try await self.requireUser(context))
            }
            api.post("users") { request, _ in try await self.addUser(request) }
            api.patch("users/{id}") { request, context in try await self.changeUser(request, context: context) }
            api.delete("users/{id}") { request, context in try await self.removeUser(request, context: context) }
        }

        /// Users by ID: `limit` of them after the ID `after` (so pages neither skip nor repeat).
        private func listUsers(_ request: Request) async throws -> Response {
            let parameters = try QueryParameters(request.uri.query)
            try parameters.allowOnly(["limit", "after"])
            let limit = try parameters.integer("limit", in: 1...Self.maximumLimit, default: Self.defaultLimit)
            let after = try parameters.integer("after", in: 0...Int.max, default: 0)
            let users = try await store.users.users().sorted { $0.id < $1.id }
            let rest = users.filter { $0.id.rawValue > after }
            let page = Array(rest.prefix(limit))
            let next: JSONValue = rest.count > limit ? .string(String(page.last?.id.rawValue ?? 0)) : .null
            return JSONResponse.make(
                .ok,
                .object([
                    "count": .integer(Int64(users.count)), "users": .array(page.map(JSONShapes.user)), "next": next,
                ]))
        }

        private func requireUser<Context: RequestContext>(_ context: Context) async throws -> User {
            guard let text = context.parameters.get("id"), let value = Int64(text), value > 0 else {
                throw Problem(.badRequest, "a user's ID is a positive integer, as in /api/users/7")
            }
            guard let user = try await store.users.user(id: User.ID(value)) else {
                throw Problem(.notFound, "no user has the ID \(value); list them with GET /api/users")
            }
            return user
        }

        /// A user's ETag: users have no version column, so it is a hash of the stored fields; a
        /// change or removal compares those fields in its UPDATE or DELETE (compare-and-set).
        static func userTag(_ user: User) -> String { ETag.hash("\(user.id.rawValue)\n\(user.name)\n\(user.email)") }

        private func userResponse(_ status: HTTPResponse.Status, _ user: User, location: Bool = false) -> Response {
            var headers: HTTPFields = [.eTag: Self.userTag(user)]
            if location { headers[.location] = "/api/users/\(user.id.rawValue)" }
            return JSONResponse.make(status, JSONShapes.user(user), headers: headers)
        }

        private func addUser(_ request: Request) async throws -> Response {
            try QueryParameters.none(request)
            try APICaller.requireNoToken("add users")
            var fields = BodyFields(try await Self.body(request))
            let name = try fields.string("name")
            let email = try fields.string("email")
            try fields.finish(known: Self.userFields)
            guard let name, let email else {
                throw Problem(.badRequest, "fields 'name' and 'email' are required")
            }
            let id = try await store.users.insert(NewUser(name: name, email: email))
            return try await CommittedWrite.answer(
                .created, "user \(id.rawValue)", id: id.rawValue, at: "/api/users/\(id.rawValue)", location: true
            ) {
                guard let user = try await store.users.user(id: id) else {
                    throw Problem(
                        .notFound, "user \(id.rawValue) was removed as it was added; list them with GET /api/users")
                }
                return userResponse(.created, user, location: true)
            }
        }

        private func checkTag<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> User {
            try QueryParameters.none(request)
            let expected = try ETag.required(request)
            let user = try await requireUser(context)
            let stored = Self.userTag(user)
            if let expected, !expected.contains(stored) {
                throw Problem(
                    .preconditionFailed,
                    "user \(user.id.rawValue) changed since: its ETag is \(stored), If-Match named \(expected.joined(separator: ", ")); GET it again"
                )
            }
            return user
        }

        private func changeUser<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response
        {
            var fields = BodyFields(try await Self.body(request))
            try fields.requireSome(known: Self.userFields)
            try fields.refuseNull(["name", "email"])
            let read = try await checkTag(request, context)
            try APICaller.requireWrite(toUser: read.id, "change another user")
            var user = read
            if let name = try fields.string("name") { user.name = name }
            if let email = try fields.string("email") { user.email = email }
            try fields.finish(known: Self.userFields)
            if user == read { return userResponse(.ok, read) }
            // Compare-and-set: the row must still be what If-Match was checked against.
            do {
                try await store.users.update(user, expecting: read)
            } catch let error as StoreError where error.code == .conflict {
                throw Problem(.preconditionFailed, "user \(user.id.rawValue) changed since it was read; GET it again")
            }
            return try await CommittedWrite.answer(
                .ok, "user \(user.id.rawValue)", id: user.id.rawValue, at: "/api/users/\(user.id.rawValue)",
                location: false
            ) {
                guard let stored = try await store.users.user(id: user.id) else {
                    throw Problem(
                        .notFound, "user \(user.id.rawValue) was removed meanwhile; list them with GET /api/users")
                }
                return userResponse(.ok, stored)
            }
        }

        private func removeUser<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response
        {
            let user = try await checkTag(request, context)
            try APICaller.requireWrite(toUser: user.id, "delete another user")
            // Their saved views lose their owner and show everyone's items: named, not unseen.
            let views = try await store.views.views().filter { $0.owner == user.id }.map(\.name)
            // Counted by the delete, in its transaction: items added meanwhile are counted too.
            let items: Int
            do {
                items = try await store.users.delete(id: user.id, expecting: user)
            } catch let error as StoreError where error.code == .conflict {
                throw Problem(.preconditionFailed, "user \(user.id.rawValue) changed since it was read; GET it again")
            }
            return JSONResponse.make(
                .ok,
                .object([
                    "id": .integer(user.id.rawValue), "items_removed": .integer(Int64(items)),
                    "views_widened": .array(views.map { .string($0) }),
                    "message": .string(
                        "Removed \(user.email) and their \(items) item\(items == 1 ? "" : "s")."
                            + Self.widenedNote(views)),
                ]))
        }

        /// What a user's removal did to their saved views, for the removal's message; empty when
        /// they had none.
        static func widenedNote(_ views: [String]) -> String {
            guard !views.isEmpty else { return "" }
            let one = views.count == 1
            let names = views.map { "“\($0)”" }.joined(separator: ", ")
            return " The saved \(one ? "view" : "views") \(names) showed only their items and now "
                + "\(one ? "shows" : "show") everyone's; give \(one ? "it" : "them") another owner or delete "
                + "\(one ? "it" : "them")."
        }
    }
#endif
