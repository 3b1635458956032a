#if Server
    internal import Crypto
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    public import ShelfStore

    /// API tokens: made (`shelf tokens create`), hashed (SHA-256; only the hash is stored),
    /// and checked on every `/api` request by `TokenMiddleware`.
    public enum APITokens {
        /// Makes a token for the user with `email`, stores its hash under `name`, and returns
        /// the token: the only time it is seen.
        /// - Throws: `StoreError` (`.unknownUser` when no user has `email`, `.invalidValue`
        ///   when `name` is taken or not a valid name).
        public static func create(in store: Store, email: String, name: String?, readOnly: Bool) async throws -> String
        {
            guard let user = try await store.users.user(email: email) else {
                throw StoreError(
                    .unknownUser,
                    "no user has the email '\(email)'; add one with `shelf users add --name NAME --email EMAIL`")
            }
            var random = SystemRandomNumberGenerator()
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let token = "shelf_" + bytes.map { String(format: "%02x", $0) }.joined()
            let tokens = store.tokens
            var chosen = name
            if chosen == nil {
                let taken = Set(try await tokens.tokens().map(\.name))
                chosen = (1...).lazy.map { "\(user.email)#\($0)" }.first { !taken.contains($0) }
            }
            try await tokens.insertToken(
                name: chosen ?? user.email, userID: user.id, hash: hash(token), readOnly: readOnly)
            return token
        }

        /// The stored form of `token`: its SHA-256 as lowercase hex.
        public static func hash(_ token: String) -> String {
            SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        }
    }

    /// Who is calling: the token a request presented, for the write rules (a token writes only
    /// its own user's items and user row) and for the rechecks of an open live stream. Nil for
    /// a request without a token on a server that needs none (loopback, no token stored).
    struct APICaller: Sendable {
        /// The token as stored.
        let token: APIToken
        /// Its hash, to look it up again.
        let hash: String

        /// The caller of the request being handled (set by `TokenMiddleware` around the route).
        @TaskLocal static var current: APICaller?

        /// A 403 unless the caller may write items owned by `owner` (its own user's), or the
        /// server takes requests without tokens and none was given; `action` says what was
        /// refused ("change an item of another user").
        static func requireWrite(toItemsOf owner: User.ID, _ action: String) throws {
            guard let caller = current, caller.token.userID != owner else { return }
            throw Problem(
                .forbidden,
                "token '\(caller.token.name)' acts for \(caller.token.email) and may not \(action); "
                    + "a token writes only its own user's items (use a token of that user)")
        }

        /// A 403 unless the caller may change user `id` (only its own row); `action` as above.
        static func requireWrite(toUser id: User.ID, _ action: String) throws {
            guard let caller = current, caller.token.userID != id else { return }
            throw Problem(
                .forbidden,
                "token '\(caller.token.name)' acts for \(caller.token.email) and may not \(action); "
                    + "a token changes only its own user (use `shelf users` on the command line)")
        }

        /// A 403 when a token was given: users are added on the command line (`shelf users add`).
        static func requireNoToken(_ action: String) throws {
            guard let caller = current else { return }
            throw Problem(
                .forbidden,
                "token '\(caller.token.name)' may not \(action): a token acts for one user; "
                    + "use `shelf users add --name NAME --email EMAIL` on the command line")
        }
    }

    /// The store's content version `TokenMiddleware` read for the request being handled (with
    /// whether a token exists), before its route ran; nil when none was read.
    enum RequestContentVersion {
        @TaskLocal static var current: StoreContentVersion?
    }

    /// When the database holds API tokens, or `requireToken` is set (a server other machines can
    /// reach), refuses every request without a valid `Authorization: Bearer TOKEN` (401, also
    /// for a revoked token) and every write with a read-only token (403). Otherwise, with no
    /// token stored, every request passes (`shelf serve` listens only on loopback then). Looked
    /// up per request, so a token made or revoked by any process counts at once. The route runs
    /// with `APICaller.current` set to the token given.
    struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
        let store: Store
        let requireToken: Bool

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws
            -> Response
        {
            // Two tokens: which one acts is a guess a proxy and this server could make differently.
            if request.headers[values: .authorization].count > 1 {
                throw Problem(.badRequest, "the request has Authorization twice; send one Authorization: Bearer TOKEN")
            }
            let header = request.headers[.authorization]
            // Without a token given, whether one is needed is read with the store's content
            // version (one statement; nil where the backend has none): `GET /api/items` then
            // answers from the bytes kept at that version without a read of its own.
            var version: StoreContentVersion?
            if header == nil, !requireToken { version = try await store.contentVersion() }
            let caller = try await Self.authorize(
                header, method: request.method, store: store, requireToken: requireToken,
                tokensExist: version?.hasTokens)
            guard let version else {
                return try await APICaller.$current.withValue(caller) { try await next(request, context) }
            }
            return try await APICaller.$current.withValue(caller) {
                try await RequestContentVersion.$current.withValue(version) { try await next(request, context) }
            }
        }

        /// The caller an `Authorization` header names, or nil when none is needed; a 401 or 403
        /// `Problem` when the request may not pass. `tokensExist`, when given, is whether the
        /// store holds a token as read for this request (else it is read here).
        static func authorize(
            _ header: String?, method: HTTPRequest.Method, store: Store, requireToken: Bool,
            tokensExist: Bool? = nil
        ) async throws -> APICaller? {
            let tokens = store.tokens
            let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"shelf\""]
            guard let header else {
                var closed = requireToken
                if !closed, let tokensExist {
                    closed = tokensExist
                } else if !closed {
                    closed = try await tokens.hasTokens()
                }
                guard closed else { return nil }
                throw Problem(
                    .unauthorized,
                    "this server needs a token: send Authorization: Bearer TOKEN (`shelf tokens create` makes one)",
                    headers: challenge)
            }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Problem(.unauthorized, "Authorization must be 'Bearer TOKEN'", headers: challenge)
            }
            let hash = APITokens.hash(String(parts[1]).trimmingCharacters(in: .whitespaces))
            guard let token = try await tokens.token(hash: hash) else {
                throw Problem(
                    .unauthorized,
                    "the token is not known here (revoked, or never made); `shelf tokens list` shows the tokens",
                    headers: challenge)
            }
            let reads: Set<HTTPRequest.Method> = [.get, .head, .options]
            if token.readOnly, !reads.contains(method) {
                throw Problem(
                    .forbidden, "token '\(token.name)' may only read; make one without --read-only to change data")
            }
            return APICaller(token: token, hash: hash)
        }
    }
#endif

#if Server
    internal import Synchronization

    /// The authorization rechecks of the open event streams: one task per distinct
    /// `Authorization` header (nil: none) checks it every interval for all the streams that
    /// sent it, and revokes them all once it no longer holds. Ten thousand streams each
    /// sleeping and checking on its own every 5 s were 2,000 timer wake-ups a second, as many
    /// as the windows delivered in `shelf-benchmarks serve`'s owners run (issue 24).
    final class AuthorizationWatches: Sendable {
        /// One stream's registration, for `remove`.
        struct Registration: Sendable {
            fileprivate let key: String
            fileprivate let id: Int
        }

        private struct Watch {
            var revokers: [Int: @Sendable (String) -> Void] = [:]
            var task: Task<Void, Never>?
        }

        private struct State {
            var watches: [String: Watch] = [:]
            var nextID = 0
        }

        private let state = Mutex(State())

        /// Calls `revoke` with the refusal's detail once `authorization` no longer holds, as
        /// `check` says (it returns the detail of a refusal, nil while the header holds, and
        /// throws when it cannot tell: the store failing is no verdict). The header is checked
        /// every `interval`, once for all the streams that sent it; a stream that joins is first
        /// checked within `interval`. End with `remove`.
        func add(
            _ authorization: String?, every interval: Duration, revoke: @escaping @Sendable (String) -> Void,
            check: @escaping @Sendable () async throws -> String?
        ) -> Registration {
            let key = authorization ?? ""
            let (registration, starts) = state.withLock { state -> (Registration, Bool) in
                state.nextID += 1
                let id = state.nextID
                let starts = state.watches[key] == nil
                state.watches[key, default: Watch()].revokers[id] = revoke
                return (Registration(key: key, id: id), starts)
            }
            guard starts else { return registration }
            // Ends when the last stream of the header is removed (cancelled) or once the header
            // is refused; `check`'s errors are verdicts put off, not lost.
            let task = Task { await self.watch(key, every: interval, check: check) }
            let stale = state.withLock { state -> Bool in
                guard state.watches[key] != nil, state.watches[key]?.task == nil else { return true }
                state.watches[key]?.task = task
                return false
            }
            // Every stream of the header went (or another watch took its place) meanwhile.
            if stale { task.cancel() }
            return registration
        }

        /// Removes a stream's registration; the last one of its header stops the checks.
        func remove(_ registration: Registration) {
            let task = state.withLock { state -> Task<Void, Never>? in
                guard var watch = state.watches[registration.key] else { return nil }
                watch.revokers[registration.id] = nil
                guard watch.revokers.isEmpty else {
                    state.watches[registration.key] = watch
                    return nil
                }
                state.watches[registration.key] = nil
                return watch.task
            }
            task?.cancel()
        }

        private func watch(_ key: String, every interval: Duration, check: @Sendable () async throws -> String?) async {
            while (try? await Task.sleep(for: interval)) != nil {
                guard let refusal = (try? await check()) ?? nil else { continue }
                let revokers = state.withLock { state -> [@Sendable (String) -> Void] in
                    defer { state.watches[key] = nil }
                    return state.watches[key].map { Array($0.revokers.values) } ?? []
                }
                for revoke in revokers { revoke(refusal) }
                return
            }
        }
    }
#endif
