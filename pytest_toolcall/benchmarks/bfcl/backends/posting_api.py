"""TwitterAPI: the posting (tweets, comments, follows) API of BFCL multi-turn (official behaviour
at gorilla@6ea5797), including its shared default lists for `tags` and `mentions` (see world.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

_DEFAULT_STATE: dict[str, Any] = {
    "username": "john",
    "password": "john123",
    "authenticated": False,
    "tweets": {},
    "comments": {},
    "retweets": {},
    "following_list": ["alice", "bob"],
    "tweet_counter": 0,
}

# Marks "argument not given", so that the world's shared default list can be used instead.
_SHARED_DEFAULT: Any = object()


def _not_authenticated(action: str) -> dict[str, str]:
    return {"error": f"User not authenticated. Please authenticate before {action}."}


class TwitterAPI:
    # The scenario's state, set by ``_load_scenario`` (from the scenario, else ``_DEFAULT_STATE``).
    username: str
    password: str
    authenticated: bool
    tweets: dict[int, dict[str, Any]]
    comments: dict[Any, list[dict[str, Any]]]
    retweets: dict[str, list[Any]]
    following_list: list[str]
    tweet_counter: int

    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world or SharedWorld()

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "authenticate_twitter": self.authenticate_twitter, "comment": self.comment,
            "follow_user": self.follow_user, "get_tweet": self.get_tweet,
            "get_tweet_comments": self.get_tweet_comments, "get_user_stats": self.get_user_stats,
            "get_user_tweets": self.get_user_tweets, "list_all_following": self.list_all_following,
            "mention": self.mention, "post_tweet": self.post_tweet,
            "posting_get_login_status": self.posting_get_login_status, "retweet": self.retweet,
            "search_tweets": self.search_tweets, "unfollow_user": self.unfollow_user,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        defaults = copy.deepcopy(_DEFAULT_STATE)
        for key in ("username", "password", "authenticated", "tweets"):
            setattr(self, key, scenario.get(key, defaults[key]))
        # JSON object keys are strings; tweet ids are ints.
        self.tweets = {int(key): value for key, value in self.tweets.items()}
        for key in ("comments", "retweets", "following_list", "tweet_counter"):
            setattr(self, key, scenario.get(key, defaults[key]))

    def authenticate_twitter(self, username: str, password: str) -> dict[str, bool]:
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict[str, bool]:
        return {"login_status": bool(self.authenticated)}

    def post_tweet(self, content: str, tags: list[str] = _SHARED_DEFAULT, mentions: list[str] = _SHARED_DEFAULT):
        if tags is _SHARED_DEFAULT:
            tags = self._world.tweet_default_tags
        if mentions is _SHARED_DEFAULT:
            mentions = self._world.tweet_default_mentions
        if not self.authenticated:
            return _not_authenticated("posting")
        tweet = {
            "id": self.tweet_counter,
            "username": self.username,
            "content": content,
            "tags": tags,
            "mentions": mentions,
        }
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict[str, str]:
        if not self.authenticated:
            return _not_authenticated("retweeting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        mine = self.retweets.setdefault(self.username, [])
        if tweet_id in mine:
            return {"retweet_status": "Already retweeted"}
        mine.append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict[str, str]:
        if not self.authenticated:
            return _not_authenticated("commenting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.comments.setdefault(tweet_id, []).append({"username": self.username, "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list[str]) -> dict[str, str]:
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict[str, Any]:
        if not self.authenticated:
            return _not_authenticated("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict[str, Any]:
        if not self.authenticated:
            return _not_authenticated("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict[str, Any]:
        if not self.authenticated:
            return _not_authenticated("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict[str, Any]:
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list[dict[str, Any]]:
        return [tweet for tweet in self.tweets.values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list[dict[str, Any]]:
        return [
            tweet
            for tweet in self.tweets.values()
            if keyword.lower() in tweet["content"].lower() or keyword.lower() in [tag.lower() for tag in tweet["tags"]]
        ]

    def get_tweet_comments(self, tweet_id: int) -> Any:
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict[str, int]:
        tweet_count = len([tweet for tweet in self.tweets.values() if tweet["username"] == username])
        following_count = len(self.following_list) if username == self.username else 0
        retweet_count = len(self.retweets.get(username, []))
        return {"tweet_count": tweet_count, "following_count": following_count, "retweet_count": retweet_count}
