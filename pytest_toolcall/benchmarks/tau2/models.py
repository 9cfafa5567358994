"""The airline, retail and telecom (agent side) databases as typed models, field for field the
official ones (tau2 1.0.1).

They are pydantic models on purpose: the official DB hash is ``sha256(json.dumps(model_dump(),
sort_keys=True, default=str))``, so whatever pydantic does to a value decides the verdict. Loading
turns a whole-number ``float`` field into a float (a gift card's ``100`` hashes as ``100.0``); a
model built by a tool validates its arguments (``Payment(amount=100.0)`` stores ``100``, ``"1.5"``
for an ``int`` fails); a value assigned to a field of an existing model is not validated (a
baggage count sent as ``2.0`` stays a float and the hash differs from the gold one, tau2-bench
#397). Class names are the official ones, as they appear in the validation errors the tools return.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from enum import Enum
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

# --- airline -------------------------------------------------------------------------------------

FlightType = Literal["round_trip", "one_way"]
CabinClass = Literal["business", "economy", "basic_economy"]
Insurance = Literal["yes", "no"]


class AirportCode(BaseModel):
    iata: str
    city: str


class Name(BaseModel):
    first_name: str
    last_name: str


class Address(BaseModel):
    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class Payment(BaseModel):
    payment_id: str
    amount: int


class CreditCard(BaseModel):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(BaseModel):
    source: Literal["gift_card"]
    id: str
    amount: float


class Certificate(BaseModel):
    source: Literal["certificate"]
    id: str
    amount: float


class Passenger(BaseModel):
    first_name: str
    last_name: str
    dob: str


class FlightDateStatusAvailable(BaseModel):
    status: Literal["available"]
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class FlightDataStatusOnTime(BaseModel):
    status: Literal["on time"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDataStatusFlying(BaseModel):
    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDateStatusLanded(BaseModel):
    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightDateStatusCancelled(BaseModel):
    status: Literal["cancelled"]


class FlightDateStatusDelayed(BaseModel):
    status: Literal["delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDateStatus = Union[  # noqa: UP007 - the official union order decides pydantic's choice
    FlightDateStatusAvailable,
    FlightDateStatusLanded,
    FlightDateStatusCancelled,
    FlightDateStatusDelayed,
    FlightDataStatusFlying,
    FlightDataStatusOnTime,
]


class Flight(BaseModel):
    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDateStatus]


class DirectFlight(BaseModel):
    flight_number: str
    origin: str
    destination: str
    status: Literal["available"]
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    date: str | None = None
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class ReservationFlight(BaseModel):
    flight_number: str
    origin: str
    destination: str
    date: str
    price: int


class FlightInfo(BaseModel):
    flight_number: str
    date: str


class User(BaseModel):
    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, Union[CreditCard, GiftCard, Certificate]]  # noqa: UP007
    saved_passengers: list[Passenger]
    membership: Literal["gold", "silver", "regular"]
    reservations: list[str]


class Reservation(BaseModel):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flights: dict[str, Flight]
    users: dict[str, User]
    reservations: dict[str, Reservation]


# --- retail --------------------------------------------------------------------------------------


class Variant(BaseModel):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(BaseModel):
    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(BaseModel):
    first_name: str
    last_name: str


class UserAddress(BaseModel):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class RetailCreditCard(BaseModel):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class Paypal(BaseModel):
    source: Literal["paypal"]
    id: str


class RetailGiftCard(BaseModel):
    source: Literal["gift_card"]
    id: str
    balance: float


class RetailUser(BaseModel):
    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, Union[RetailCreditCard, RetailGiftCard, Paypal]]  # noqa: UP007
    orders: list[str]


class OrderFullfilment(BaseModel):
    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(BaseModel):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(BaseModel):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


OrderStatus = Literal[
    "processed",
    "pending",
    "pending (item modified)",
    "delivered",
    "cancelled",
    "exchange requested",
    "return requested",
]


class Order(BaseModel):
    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFullfilment]
    payment_history: list[OrderPayment]
    cancel_reason: Literal["no longer needed", "ordered by mistake"] | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(BaseModel):
    model_config = ConfigDict(extra="forbid")
    products: dict[str, Product]
    users: dict[str, RetailUser]
    orders: dict[str, Order]


# --- telecom (the agent's side; the user's phone is ``telecom_device.py``) ------------------------
# Every model forbids extra fields (the official ``BaseModelNoExtra``). The enums are ``(str,
# Enum)`` as officially, not ``StrEnum`` (whose ``str()`` differs): a dump keeps the member, which
# JSON writes as its text. A default is not validated, so a
# customer without ``created_at`` keeps the *date* 2025-01-01 (it hashes as ``2025-01-01``).


class _NoExtra(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TelecomAddress(_NoExtra):
    street: str
    city: str
    state: str
    zip_code: str


class Plan(_NoExtra):
    plan_id: str
    name: str
    data_limit_gb: float
    price_per_month: float
    data_refueling_price_per_gb: float


class DeviceType(str, Enum):  # noqa: UP042 - the official kind of enum
    PHONE = "phone"
    ROUTER = "router"
    TABLET = "tablet"
    WATCH = "watch"
    OTHER = "other"


class Device(_NoExtra):
    device_id: str
    device_type: DeviceType
    model: str
    imei: str | None = None
    is_esim_capable: bool
    activated: bool = False
    activation_date: datetime.datetime | None = None
    last_esim_transfer_date: datetime.datetime | None = None


class LineStatus(str, Enum):  # noqa: UP042 - the official kind of enum
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_ACTIVATION = "Pending Activation"
    CLOSED = "Closed"


class Line(_NoExtra):
    line_id: str
    phone_number: str
    status: LineStatus = LineStatus.PENDING_ACTIVATION
    plan_id: str
    device_id: str | None = None
    data_used_gb: float = 0.0
    data_refueling_gb: float = 0.0
    roaming_enabled: bool = False
    contract_end_date: datetime.date | None = None
    last_plan_change_date: datetime.date | None = None
    last_sim_replacement_date: datetime.date | None = None
    suspension_start_date: datetime.date | None = None


class LineItem(_NoExtra):
    description: str
    amount: float
    date: datetime.date
    item_type: str


class BillStatus(str, Enum):  # noqa: UP042 - the official kind of enum
    DRAFT = "Draft"
    ISSUED = "Issued"
    AWAITING_PAYMENT = "Awaiting Payment"
    PAID = "Paid"
    OVERDUE = "Overdue"
    DISPUTED = "Disputed"


class Bill(_NoExtra):
    bill_id: str
    customer_id: str
    period_start: datetime.date
    period_end: datetime.date
    issue_date: datetime.date
    total_due: float
    due_date: datetime.date
    line_items: list[LineItem] = Field(default_factory=list)
    status: BillStatus = BillStatus.DRAFT


class AccountStatus(str, Enum):  # noqa: UP042 - the official kind of enum
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_VERIFICATION = "Pending Verification"
    CLOSED = "Closed"


class PaymentMethodType(str, Enum):  # noqa: UP042 - the official kind of enum
    CREDIT_CARD = "Credit Card"
    DEBIT_CARD = "Debit Card"
    PAYPAL = "PayPal"


class PaymentMethod(_NoExtra):
    method_type: PaymentMethodType
    account_number_last_4: str
    expiration_date: str


class Customer(_NoExtra):
    customer_id: str
    full_name: str
    date_of_birth: str
    email: str
    phone_number: str
    address: TelecomAddress
    account_status: AccountStatus = AccountStatus.PENDING_VERIFICATION
    payment_methods: list[PaymentMethod] = Field(default_factory=list)
    line_ids: list[str] = Field(default_factory=list)
    bill_ids: list[str] = Field(default_factory=list)
    created_at: datetime.datetime = datetime.date(2025, 1, 1)  # type: ignore[assignment]  # as officially
    last_extension_date: datetime.date | None = None
    goodwill_credit_used_this_year: float = 0.0


class TelecomDB(_NoExtra):
    plans: list[Plan] = Field(default_factory=list)
    customers: list[Customer] = Field(default_factory=list)
    lines: list[Line] = Field(default_factory=list)
    bills: list[Bill] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)


def db_hash(db: BaseModel) -> str:
    """The official hash of a database (``get_dict_hash(db.model_dump())``)."""
    dumped = db.model_dump(warnings=False)
    return hashlib.sha256(json.dumps(dumped, sort_keys=True, default=str).encode()).hexdigest()


def dump(value: Any) -> Any:
    """A model as the plain data its hash and its JSON text are made of."""
    return value.model_dump(warnings=False) if isinstance(value, BaseModel) else value
