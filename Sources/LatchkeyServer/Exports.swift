// The wire types (JSONValue, request and response bodies) are part of the server's public API:
// user records carry JSONValue metadata.
@_exported import LatchkeyWire
