"""BFCL (Berkeley Function Calling Leaderboard, ShishirPatil/gorilla@6ea5797): non-live, live and
multi-turn categories, in native-tool and prompting modes, scored like the official checker."""
