"""Re-bucket the running calibration cells half up (floor(total + 0.5)), the rule the writer and
the on-the-fly query now share; 0003's backfill used Python's half-to-even round()."""

from django.db import migrations
from django.db.models import Count, ExpressionWrapper, F, FloatField, Sum, Value
from django.db.models.functions import Floor


def rebucket(apps, schema_editor):
    point_model = apps.get_model("scoring", "CalibrationPoint")
    cell_model = apps.get_model("scoring", "CalibrationCell")
    bucket = Floor(ExpressionWrapper(F("auto_total") + Value(0.5), output_field=FloatField()))
    rows = (point_model.objects.annotate(cell_bucket=bucket).order_by()
            .values("bank_id", "question", "cell_bucket", "auto_rating", "human_rating")
            .annotate(cell_n=Count("pk"), cell_sx=Sum("auto_total"),
                      cell_sxx=Sum(F("auto_total") * F("auto_total"), output_field=FloatField()),
                      cell_sxy=Sum(F("auto_total") * F("human_rating"),
                                   output_field=FloatField())))
    cells = [cell_model(bank_id=r["bank_id"], question=r["question"],
                        bucket=float(r["cell_bucket"]), auto_rating=r["auto_rating"],
                        human_rating=r["human_rating"], n=r["cell_n"], sx=r["cell_sx"],
                        sxx=r["cell_sxx"], sxy=r["cell_sxy"]) for r in rows]
    cell_model.objects.all().delete()
    cell_model.objects.bulk_create(cells, batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0003_issue11_calibration_points"),
    ]

    operations = [
        migrations.RunPython(rebucket, migrations.RunPython.noop),
    ]
