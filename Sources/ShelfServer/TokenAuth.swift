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
            let tokens = try store.tokens
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

    /// When the database holds API tokens, or `requireToken` is set (a server other machines can
    /// reach), refuses every request without a valid `Authorization: Bearer TOKEN` (401, also
    /// for a revoked token) and every write with a read-only token (403). Otherwise, with no
    /// token stored, every request passes (`shelf serve` listens only on loopback then). Looked
    /// up per request, so a token made or revoked by any process counts at once.
    struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
        let store: Store
        let requireToken: Bool

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws
            -> Response
        {
            let tokens = try store.tokens
            let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"shelf\""]
            guard let header = request.headers[.authorization] else {
                let closed = try await requireToken ? true : tokens.hasTokens()
                guard closed else { return try await next(request, context) }
                throw Problem(
                    .unauthorized,
                    "this server needs a token: send Authorization: Bearer TOKEN (`shelf tokens create` makes one)",
                    headers: challenge)
            }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Problem(.unauthorized, "Authorization must be 'Bearer TOKEN'", headers: challenge)
            }
            guard
                let token = try await tokens.token(
                    hash: APITokens.hash(String(parts[1]).trimmingCharacters(in: .whitespaces)))
            else {
                throw Problem(
                    .unauthorized,
                    "the token is not known here (revoked, or never made); `shelf tokens list` shows the tokens",
                    headers: challenge)
            }
            let reads: Set<HTTPRequest.Method> = [.get, .head, .options]
            if token.readOnly, !reads.contains(request.method) {
                throw Problem(
                    .forbidden, "token '\(token.name)' may only read; make one without --read-only to change data")
            }
            return try await next(request, context)
        }
    }
#endif
