"""Amounts of AUD in a sentence, shown in another currency at a rate (rank explanations in a report)."""

import pytest

from apps.core.currency import text_in


@pytest.mark.parametrize("text, shown", [
    # 12,345 / 1.25 = 9,876; 10,000 / 1.25 = 8,000; 25K / 1.25 = 20K
    ("3 — AUD 12,345 per epoch (AUD 10,000 billed): up to AUD 25K", "3 — USD 9,876 per epoch (USD 8,000 billed): up to USD 20K"),
    ("5 — AUD 0: no capital outlay", "5 — USD 0: no capital outlay"),
    ("over AUD 1M.", "over USD 800K."),  # 1,000,000 / 1.25, the sentence's full stop kept
    ("AUD 0.50 a GB", "USD 0.40 a GB"),  # cents stay cents
    ("2 — AUD 5,000, 2× the best (2,500 AUD)", "2 — USD 4,000, 2× the best (2,000 USD)"),
    ("1,060 h at 16 cores", "1,060 h at 16 cores"),  # no money, nothing changes
])
def test_every_amount_of_aud_is_divided_by_the_rate_and_written_as_before(text, shown):
    assert text_in(text, 1.25, "USD") == shown


def test_aud_text_is_left_as_it_is():
    assert text_in("AUD 12,345", 1.0, "AUD") == "AUD 12,345"
