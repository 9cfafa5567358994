"""TradingBot: the stock-trading API of BFCL multi-turn (official behaviour at gorilla@6ea5797).

Transaction timestamps are drawn from a `random.Random` seeded from the scenario (1053520 by
default) within the day after the fixed "now" of 2024-09-01 10:30 (local time, like the official
code). Long-context dialogues pad several results with the official filler data.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld, long_context_value

_NOW = datetime(2024, 9, 1, 10, 30)


def _stock(price: float, change: float, volume: float, ma5: float, ma20: float) -> dict[str, float]:
    return {"price": price, "percent_change": change, "volume": volume, "MA(5)": ma5, "MA(20)": ma20}


_DEFAULT_STATE: dict[str, Any] = {
    "orders": {
        12345: {"id": 12345, "order_type": "Buy", "symbol": "AAPL", "price": 210.65, "amount": 10,
                "status": "Completed"},
        12446: {"id": 12446, "order_type": "Sell", "symbol": "GOOG", "price": 2840.56, "amount": 5,
                "status": "Pending"},
    },
    "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
    "authenticated": False,
    "market_status": "Closed",
    "order_counter": 12446,
    "stocks": {
        "AAPL": _stock(227.16, 0.17, 2.552, 227.11, 227.09),
        "GOOG": _stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
        "TSLA": _stock(667.92, -0.12, 1.654, 671.15, 668.2),
        "MSFT": _stock(310.23, 0.09, 3.234, 309.88, 310.11),
        "NVDA": _stock(220.34, 0.34, 1.234, 220.45, 220.67),
        "ALPH": _stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
        "OMEG": _stock(457.23, 0.12, 2.345, 456.78, 458.12),
        "QUAS": _stock(725.89, -0.03, 1.789, 726.45, 728.0),
        "NEPT": _stock(88.34, 0.19, 0.654, 88.21, 88.67),
        "SYNX": _stock(345.67, 0.11, 2.112, 345.34, 346.12),
        "ZETA": _stock(22.09, -0.05, 0.789, 22.12, 22.34),
    },
    "watch_list": ["NVDA"],
    "transaction_history": [],
    "random_seed": 1053520,
}  # fmt: skip

_SYMBOLS = {
    "Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA",
    "Zeta Corp": "ZETA", "Alpha Tech": "ALPH", "Omega Industries": "OMEG", "Quasar Ltd.": "QUAS",
    "Neptune Systems": "NEPT", "Synex Solutions": "SYNX", "Amazon": "AMZN", "Gorilla": "GORI",
}  # fmt: skip


def _login_needed(action: str) -> dict[str, str]:
    return {"error": f"User not authenticated. Please log in to {action}."}


class TradingBot:
    # The scenario's state, set by ``_load_scenario`` (from the scenario, else ``_DEFAULT_STATE``).
    orders: dict[Any, dict[str, Any]]
    account_info: dict[str, Any]
    authenticated: bool
    market_status: str
    order_counter: int
    stocks: dict[str, dict[str, float]]
    watch_list: list[str]
    transaction_history: list[dict[str, Any]]
    long_context: bool

    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world
        self._random = random.Random(1053520)

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "add_to_watchlist": self.add_to_watchlist, "cancel_order": self.cancel_order,
            "filter_stocks_by_price": self.filter_stocks_by_price, "fund_account": self.fund_account,
            "get_account_info": self.get_account_info, "get_available_stocks": self.get_available_stocks,
            "get_current_time": self.get_current_time, "get_order_details": self.get_order_details,
            "get_order_history": self.get_order_history, "get_stock_info": self.get_stock_info,
            "get_symbol_by_name": self.get_symbol_by_name, "get_transaction_history": self.get_transaction_history,
            "get_watchlist": self.get_watchlist, "notify_price_change": self.notify_price_change,
            "place_order": self.place_order, "remove_stock_from_watchlist": self.remove_stock_from_watchlist,
            "trading_get_login_status": self.trading_get_login_status, "trading_login": self.trading_login,
            "trading_logout": self.trading_logout, "withdraw_funds": self.withdraw_funds,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        defaults = copy.deepcopy(_DEFAULT_STATE)
        orders = scenario.get("orders", defaults["orders"])
        # JSON keys are strings; numeric order ids become ints.
        self.orders = {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in orders.items()}
        for key in ("account_info", "authenticated", "market_status", "order_counter", "stocks", "watch_list",
                    "transaction_history"):  # fmt: skip
            setattr(self, key, scenario.get(key, defaults[key]))
        self.long_context = long_context
        self._random = random.Random(scenario.get("random_seed", defaults["random_seed"]))

    def _timestamp(self) -> str:
        start = int(_NOW.timestamp())
        end = int((_NOW + timedelta(days=1)).timestamp())
        return datetime.fromtimestamp(self._random.randint(start, end)).strftime("%Y-%m-%d %H:%M:%S")

    def get_current_time(self) -> dict[str, str]:
        return {"current_time": _NOW.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> dict[str, str]:
        return {"symbol": _SYMBOLS.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> dict[str, Any]:
        if symbol not in self.stocks:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        if self.long_context:
            stock = self.stocks[symbol].copy()
            stock["MA(5)"] = long_context_value("MA_5_EXTENSION")
            stock["MA(20)"] = long_context_value("MA_20_EXTENSION")
            return stock
        return self.stocks[symbol]

    def get_order_details(self, order_id: int) -> dict[str, Any]:
        if order_id not in self.orders:
            return {
                "error": f"Order with ID {order_id} not found."
                + "Here is the list of orders_id: "
                + str(list(self.orders.keys()))
            }
        if not self.long_context:
            return self.orders[order_id]
        order = self.orders[order_id].copy()
        symbol = order["symbol"]
        metadata = {}
        for key, template in long_context_value("ORDER_DETAIL_EXTENSION").items():
            try:
                metadata[key] = template.format(symbol=symbol)
            except KeyError as exc:
                return {"error": f"KeyError during formatting: {exc!s}"}
        order["metadata"] = metadata
        return order

    def cancel_order(self, order_id: int) -> dict[str, Any]:
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."}
        if self.orders[order_id]["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        self.orders[order_id]["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> dict[str, Any]:
        if not self.authenticated:
            return _login_needed("place an order")
        if symbol not in self.stocks:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            total_cost = float(price) * int(amount)
            balance = self.account_info.get("balance", 0)
            if total_cost > balance:
                return {
                    "error": f"Insufficient funds: required ${total_cost:.2f} but only "
                    f"${self.account_info.get('balance', 0):.2f} available."
                }
        price = float(price)
        order_id = self.order_counter
        self.orders[order_id] = {
            "id": order_id,
            "order_type": order_type,
            "symbol": symbol,
            "price": price,
            "amount": amount,
            "status": "Open",
        }
        self.order_counter += 1
        return {"order_id": order_id, "order_type": order_type, "status": "Pending", "price": price, "amount": amount}

    def withdraw_funds(self, amount: float) -> dict[str, Any]:
        if not self.authenticated:
            return _login_needed("make a transaction")
        if self.market_status != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self.account_info["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        self.account_info["balance"] -= amount
        self.transaction_history.append({"type": "withdrawal", "amount": amount, "timestamp": self._timestamp()})
        return {"status": "Withdrawal successful", "new_balance": self.account_info["balance"]}

    def get_account_info(self) -> dict[str, Any]:
        if not self.authenticated:
            return _login_needed("view account information")
        return self.account_info

    def trading_login(self, username: str, password: str) -> dict[str, str]:
        if self.authenticated:
            return {"status": "Already logged in"}
        self.authenticated = True
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> dict[str, bool]:
        return {"status": bool(self.authenticated)}

    def trading_logout(self) -> dict[str, str]:
        if not self.authenticated:
            return {"status": "No user is currently logged in"}
        self.authenticated = False
        return {"status": "Logged out successfully"}

    def fund_account(self, amount: float) -> dict[str, Any]:
        if not self.authenticated:
            return _login_needed("fund the account")
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        self.account_info["balance"] += amount
        self.transaction_history.append({"type": "deposit", "amount": amount, "timestamp": self._timestamp()})
        return {"status": "Account funded successfully", "new_balance": self.account_info["balance"]}

    def remove_stock_from_watchlist(self, symbol: str) -> dict[str, str]:
        if not self.authenticated:
            return _login_needed("modify the watchlist")
        if symbol not in self.watch_list:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self.watch_list.remove(symbol)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}

    def get_watchlist(self) -> Any:
        if not self.authenticated:
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self.long_context:
            # A bare list here (not a dict), as in the official code.
            return [*self.watch_list, *long_context_value("WATCH_LIST_EXTENSION")]
        return {"watchlist": self.watch_list}

    def get_order_history(self) -> Any:
        if not self.authenticated:
            return [_login_needed("view order history")]
        return {"history": list(self.orders.keys())}

    def get_transaction_history(self, start_date: str | None = None, end_date: str | None = None) -> Any:
        if not self.authenticated:
            return [_login_needed("view transaction history")]
        start = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        end = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        history = [
            entry
            for entry in self.transaction_history
            if start <= datetime.strptime(entry["timestamp"], "%Y-%m-%d %H:%M:%S") <= end
        ]
        if self.long_context:
            history.extend(long_context_value("TRANSACTION_HISTORY_EXTENSION"))
        return {"transaction_history": history}

    def get_available_stocks(self, sector: str) -> dict[str, list[str]]:
        sectors = {"Technology": ["AAPL", "GOOG", "MSFT", "NVDA"], "Automobile": ["TSLA", "F", "GM"]}
        if self.long_context:
            sectors["Technology"].extend(long_context_value("TECHNOLOGY_EXTENSION"))
            sectors["Automobile"].extend(long_context_value("AUTOMOBILE_EXTENSION"))
        return {"stock_list": sectors.get(sector, [])}

    def filter_stocks_by_price(self, stocks: list[str], min_price: float, max_price: float) -> dict[str, list[str]]:
        def price_of(symbol: str) -> float:
            return self.stocks.get(symbol, {}).get("price", 0)

        return {"filtered_stocks": [s for s in stocks if price_of(s) >= min_price and price_of(s) <= max_price]}

    def add_to_watchlist(self, stock: str) -> dict[str, list[str]]:
        if stock not in self.watch_list and stock in self.stocks:
            self.watch_list.append(stock)
        return {"watchlist": self.watch_list}

    def notify_price_change(self, stocks: list[str], threshold: float) -> dict[str, str]:
        moved = [s for s in stocks if s in self.stocks and abs(self.stocks[s]["percent_change"]) >= threshold]
        if moved:
            return {"notification": f"Stocks {', '.join(moved)} have significant price changes."}
        return {"notification": "No significant price changes in the selected stocks."}
