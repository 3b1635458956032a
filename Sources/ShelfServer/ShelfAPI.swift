#if Server
    internal import Foundation
    internal import HTTPTypes
    public import Hummingbird
    internal import HummingbirdCore
    public import Logging
    internal import NIOCore
    public import ShelfStore

    /// Shelf's HTTP routes, to mount in a Hummingbird application: the REST API under `/api`,
    /// the live item windows (`/api/items/live`) and the change stream (`/api/changes`), both
    /// server-sent events, `/healthz` and `/metrics`. Every GET route answers HEAD too.
    ///
    /// ```swift
    /// let store = try Store(path: "shelf.sqlite")
    /// let router = Router()
    /// ShelfAPI(store: store).addRoutes(to: router)
    /// try await Application(router: router).runService()
    /// ```
    ///
    /// Every error is answered as `application/problem+json`. When the database holds API
    /// tokens (`shelf tokens create`), every `/api` request needs `Authorization: Bearer TOKEN`.
    /// Live streams end when the application shuts down gracefully (ServiceLifecycle).
    public struct ShelfAPI: Sendable {
        /// The options of the routes.
        public struct Options: Sendable {
            /// How often a live stream sends a comment line while nothing changes, so proxies
            /// keep idle streams open. Default 15 s.
            public var keepAlive: Duration
            /// The change-log position a live window reflects (its event's `id:` and `seq`),
            /// asked once per window; nil while Shelf has no change log (issue 23), in which
            /// case events carry `"seq": null` and no `id:`, and `Last-Event-ID` is not honoured.
            public var windowPosition: @Sendable (ItemWindow) async -> Int64?
            /// Whether every `/api` request needs a valid token even while the database holds
            /// none: true for a server other machines can reach, so that revoking its last token
            /// closes it instead of opening it to anyone. Default false (open while no token
            /// exists, as on loopback).
            public var requireToken: Bool
            /// How often an open live stream checks its request's token again; a stream whose
            /// token was revoked (or whose user was deleted) ends within this time. Default 5 s.
            public var authorizationRecheck: Duration
            /// How long the database calls of one request may take in all, from the request's
            /// start: on a database server (PostgreSQL), a request whose calls have not all
            /// answered by then is answered 503 with `Retry-After`, saying the database did not
            /// answer (a network gone silent, an overloaded server), however many calls it made.
            /// An event stream's body is not bounded (only what it reads before its first
            /// event). Default 30 s.
            public var databaseLimit: Duration

            /// Options; each left out has its default.
            public init(
                keepAlive: Duration = .seconds(15),
                windowPosition: @escaping @Sendable (ItemWindow) async -> Int64? = { _ in nil },
                requireToken: Bool = false, authorizationRecheck: Duration = .seconds(5),
                databaseLimit: Duration = .seconds(30)
            ) {
                self.keepAlive = keepAlive
                self.windowPosition = windowPosition
                self.requireToken = requireToken
                self.authorizationRecheck = authorizationRecheck
                self.databaseLimit = databaseLimit
            }
        }

        /// The largest request body taken (1 MiB); a larger one is a 413.
        public static let maximumBodyBytes = 1 << 20
        /// The most items one page or live window holds.
        public static let maximumLimit = 1_000
        /// Items in a page or window when `limit` is not given.
        public static let defaultLimit = 50

        /// The store the routes read and write.
        public let store: Store
        /// The routes' options.
        public let options: Options
        /// The service's metrics, as `/metrics` shows them.
        public let metrics: ServerMetrics
        let logger: Logger
        let authorizationWatches = AuthorizationWatches()
        /// The open live queries' fan-outs: each window encoded once per distinct query and
        /// written to its streams from their event loops.
        let windowFanouts = LiveWindowFanouts()
        /// `GET /api/items` answers, kept while the store does not change.
        let itemPages = ItemPageCache()

        /// Routes over `store`.
        public init(store: Store, options: Options = Options(), logger: Logger = Logger(label: "shelf.http")) {
            self.store = store
            self.options = options
            self.metrics = ServerMetrics()
            self.logger = logger
        }

        /// Adds the routes to `router`: `/healthz`, `/metrics` and `/api/…`, each behind the
        /// access log, the request metrics and the problem+json errors; `/api` also behind the
        /// token check.
        public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
            let root = router.group()
                .add(middleware: AccessLogMiddleware<Context>(logger: logger, metrics: metrics))
                .add(middleware: ProblemMiddleware<Context>())
                .add(middleware: DatabaseLimitMiddleware<Context>(limit: options.databaseLimit))
            // Like every route that takes no parameters, they refuse any (`/healthz?verbose`
            // would otherwise seem to mean something).
            root.read("healthz") { request, _ in
                try QueryParameters.none(request)
                // Sooner than the routes' limit: a load balancer's check gives up after a few
                // seconds (Kubernetes 1 s, AWS's 5 s); over a silent network it waited 30 s.
                let limit = min(self.options.databaseLimit, Self.healthLimit)
                return try await CallDeadline.$current.withValue(CallDeadline(in: limit)) { try await self.health() }
            }
            root.read("metrics") { request, _ in
                try QueryParameters.none(request)
                return self.metrics.response()
            }
            let api = root.group("api").add(
                middleware: TokenMiddleware<Context>(store: store, requireToken: options.requireToken))
            addItemRoutes(to: api)
            addUserRoutes(to: api)
            api.read("views") { request, _ in
                try QueryParameters.none(request)
                return try await self.views()
            }
            api.read("changes") { request, context in try await self.changes(request, context: context) }
        }

        /// The methods of the route whose path is `path`, or nil when no route has it.
        static func methods(allowedOn path: String) -> [HTTPRequest.Method]? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            let isID: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
            switch Array(parts) {
            case ["healthz"], ["metrics"], ["api", "views"], ["api", "items", "live"], ["api", "changes"]:
                return [.get, .head]
            case ["api", "items"], ["api", "users"]: return [.get, .head, .post]
            case let p where p.count == 3 && p[0] == "api" && (p[1] == "items" || p[1] == "users") && isID(p[2]):
                return [.get, .head, .patch, .delete]
            default: return nil
            }
        }

        /// The longest `/healthz` waits for the store before it answers 503.
        static let healthLimit = Duration.seconds(5)

        private func health() async throws -> Response {
            do {
                _ = try await store.users.user(id: User.ID(0))
            } catch let error as StoreError {
                throw Problem(
                    .serviceUnavailable, "the store does not answer: \(error.message)",
                    headers: error.code == .fileReplaced ? [:] : [.retryAfter: "1"])
            }
            return JSONResponse.make(.ok, .object(["status": .string("ok")]))
        }

        private func views() async throws -> Response {
            let views = try await store.views.views()
            return JSONResponse.make(
                .ok, .object(["count": .integer(Int64(views.count)), "views": .array(views.map(JSONShapes.view))]))
        }
    }

    /// Runs each request's route under a `CallDeadline` of `limit` (`Options.databaseLimit`):
    /// a server backend fails every database call still waiting then, and every later one at
    /// once, as unavailable (a 503 with `Retry-After`). Over a network gone silent a request's
    /// calls, each bounded on its own, added up to 65 s (hostile round 10). The deadline
    /// covers the route until it returns its response: not a stream's body, written after.
    ///
    /// Not the event streams' routes: opening one may start the store's long-lived work (the
    /// change feed's listener, a live query's runs) in tasks that would inherit the deadline
    /// (a task-local value) and fail every call after it. Their calls are bounded one by one.
    struct DatabaseLimitMiddleware<Context: RequestContext>: RouterMiddleware {
        let limit: Duration

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            let path = request.uri.path
            if path == "/api/items/live" || path == "/api/changes" { return try await next(request, context) }
            return try await CallDeadline.$current.withValue(CallDeadline(in: limit)) {
                try await next(request, context)
            }
        }
    }

    extension RouterMethods {
        /// Adds `handler` as the GET route of `path`, and a HEAD route that answers the GET's
        /// status and headers without its body (a stream's body is never started).
        @discardableResult
        func read(
            _ path: RouterPath, use handler: @escaping @Sendable (Request, Context) async throws -> Response
        ) -> Self {
            get(path, use: handler)
            head(path) { request, context in
                let response = try await handler(request, context)
                // No length of its own: the GET's Content-Length (or none, for a stream) stays.
                return Response(
                    status: response.status, headers: response.headers,
                    body: ResponseBody(contentLength: nil) { writer in try await writer.finish(nil) })
            }
            return self
        }
    }

    /// The answer to a write that has committed.
    enum CommittedWrite {
        /// `answer()`, which reads back what was written; when that read fails (the database
        /// went away right after the commit), the write is still answered as done: `status`, the
        /// ID, a `Location` when `location`, and a `detail` saying the read failed; never an
        /// error. A 503 there said "nothing was done" of a committed write, and a client that
        /// retried wrote it twice (hostile round 10). A `Problem` (the row removed meanwhile) and
        /// a cancelled request are passed on.
        static func answer(
            _ status: HTTPResponse.Status, _ what: String, id: Int64, at path: String, location: Bool,
            _ answer: () async throws -> Response
        ) async throws -> Response {
            do {
                return try await answer()
            } catch let error as Problem {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                return written(status, what, id: id, at: path, location: location, readFailure: error)
            }
        }

        /// The answer `answer` gives when the read-back failed with `readFailure`.
        static func written(
            _ status: HTTPResponse.Status, _ what: String, id: Int64, at path: String, location: Bool,
            readFailure: any Error
        ) -> Response {
            var headers: HTTPFields = [:]
            if location { headers[.location] = path }
            return JSONResponse.make(
                status, body(what, id: id, at: path, readFailure: readFailure), headers: headers)
        }

        /// The body of `written`'s answer: the ID, and a detail saying what was written, why it
        /// was not read back, and not to write it again.
        static func body(_ what: String, id: Int64, at path: String, readFailure: any Error) -> JSONValue {
            let message = (readFailure as? StoreError)?.message ?? "\(readFailure)"
            let detail =
                "\(what) was written, but reading it back failed (\(message)); do not write it again: "
                + "GET \(path) once the database answers"
            return .object(["id": .integer(id), "detail": .string(detail)])
        }
    }

    /// JSON responses.
    enum JSONResponse {
        static func make(_ status: HTTPResponse.Status, _ value: JSONValue, headers: HTTPFields = [:]) -> Response {
            make(status, body: ByteBuffer(bytes: value.encoded()), headers: headers)
        }

        /// A response whose body is JSON already encoded.
        static func make(_ status: HTTPResponse.Status, body: ByteBuffer, headers: HTTPFields = [:]) -> Response {
            var fields = headers
            fields[.contentType] = "application/json"
            return Response(status: status, headers: fields, body: .init(byteBuffer: body))
        }
    }
#endif
