# Platforms copied into a workspace to edit there (null workspace: the shared reference catalogue)

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('platforms', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='platform',
            name='copied_from',
            field=models.ForeignKey(blank=True, help_text='the platform this copy was made from', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='copies', to='platforms.platform'),
        ),
        migrations.AddField(
            model_name='platform',
            name='workspace',
            field=models.ForeignKey(blank=True, help_text='the workspace whose editable copy this is; none: the shared, read-only reference catalogue', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='platforms', to='accounts.workspace'),
        ),
    ]
