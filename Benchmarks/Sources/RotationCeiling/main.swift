// The raw-SQLite ceiling of refresh-token rotation on this machine: the transaction the server
// runs for one rotation, run directly on a copy of the server's own database (so the schema,
// indexes and pragmas are the server's) on one thread, with nothing else around it: no HTTP, no
// JSON, no token signing, no hashing, no thread hops. `server.sh` prints the server's rotation
// rate as a share of this.
//
// One rotation, as `SQLiteAuthStore.rotateRefreshToken` and `SQLiteRows.apply` run it in one
// write transaction: read the token by its hash, its session and its user; mark the token spent;
// insert its successor; touch the session; write the audit row.
//
// Usage: rotation-ceiling DATABASE [seconds]   (DATABASE: a stopped server's latchkey.sqlite)
import Foundation
import GRDB

let arguments = CommandLine.arguments
guard arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: rotation-ceiling DATABASE [seconds]\n".utf8))
    exit(2)
}
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 5 : 5

var configuration = Configuration()
configuration.foreignKeysEnabled = true
configuration.prepareDatabase { db in
    try db.execute(sql: "PRAGMA journal_mode = WAL")
    try db.execute(sql: "PRAGMA synchronous = NORMAL")
}
let queue = try DatabaseQueue(path: arguments[1], configuration: configuration)

let userColumns = """
    id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at, recovery_sent_at, \
    new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata, user_metadata, created_at, updated_at, \
    is_anonymous, invited_at
    """
let sessionColumns = "id, user_id, created_at, updated_at, refreshed_at, not_after, auth_method, aal, factor_id, verified_methods"

/// The active token of every session, rotated in turn.
var active: [String] = try queue.read { db in
    try String.fetchAll(db, sql: "SELECT token_hash FROM refresh_tokens WHERE revoked_at IS NULL")
}
guard !active.isEmpty else {
    FileHandle.standardError.write(Data("rotation-ceiling: no active refresh token in \(arguments[1])\n".utf8))
    exit(1)
}

var rotations = 0
var serial = 0
let run = UInt32.random(in: 0...UInt32.max)  // successors of another run on the same file never collide
let start = Date()
let deadline = start.addingTimeInterval(seconds)
try queue.inDatabase { db in
    while Date() < deadline {
        let slot = rotations % active.count
        serial += 1
        let successor = String(format: "ceiling-%08x-%016x", run, serial)
        try db.inTransaction(.immediate) {
            let now = Date().timeIntervalSince1970
            guard let token = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM refresh_tokens WHERE token_hash = ?"), arguments: [active[slot]]) else {
                fatalError("token vanished")
            }
            let sessionID: String = token["session_id"]
            let userID: String = token["user_id"]
            _ = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(sessionColumns) FROM sessions WHERE id = ?"), arguments: [sessionID])
            _ = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(userColumns) FROM users WHERE id = ?"), arguments: [userID])
            try db.cachedStatement(sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE token_hash = ?").execute(arguments: [now, active[slot]])
            try db.cachedStatement(
                sql: "INSERT INTO refresh_tokens (token_hash, session_id, user_id, parent_hash, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [successor, sessionID, userID, active[slot], nil, now])
            try db.cachedStatement(sql: "UPDATE sessions SET refreshed_at = ?, updated_at = ? WHERE id = ?").execute(arguments: [now, now, sessionID])
            try db.cachedStatement(
                sql: """
                    INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [UUID().uuidString.lowercased(), "token_refreshed", userID, nil, "token", "{}", "127.0.0.1", now])
            return .commit
        }
        active[slot] = successor
        rotations += 1
    }
}
let elapsed = Date().timeIntervalSince(start)
print(String(format: "%.1f", Double(rotations) / elapsed))
